package s3

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost/internal/awscreds"
)

// InstanceRole retrieves the credentials of the EC2 instance's IAM role through
// awscreds.IMDS, the last link of gpucost's AWS chain. Config.Credentials caches them until
// they expire.
type InstanceRole struct {
	Endpoint string // the metadata service; http://169.254.169.254 when empty
}

var _ aws.CredentialsProvider = (*InstanceRole)(nil)

// Retrieve asks the metadata service for the role's credentials. Off EC2, or on an instance
// without a role, it returns an EInvalid error saying which credentials gpucost reads.
func (r *InstanceRole) Retrieve(ctx context.Context) (aws.Credentials, error) {
	return (&awscreds.IMDS{Endpoint: r.Endpoint}).Retrieve(ctx)
}
