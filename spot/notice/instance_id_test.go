package notice_test

import (
	"testing"

	"github.com/gpucost/gpucost/spot/notice"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

// TestDescribeAWSInstanceID checks that Describe reads the instance ID, which report spot
// matches with the bill's resource IDs, and that an instance without one is described all the
// same.
func TestDescribeAWSInstanceID(t *testing.T) {
	imds := noticetest.NewAWS(t)
	imds.SetInstance("g5.xlarge", "us-east-1", "us-east-1a", "use1-az4", "spot")
	imds.SetMetaData("instance-id", "i-0abc1234def567890")
	got, err := notice.Describe(t.Context(), notice.CloudAWS, notice.Probe{AWS: imds.URL})
	if err != nil || got.InstanceID != "i-0abc1234def567890" || got.ZoneID != "use1-az4" {
		t.Errorf("Describe(aws) = %+v, %v; want instance i-0abc1234def567890 in use1-az4", got, err)
	}
	imds.SetMetaData("instance-id", "")
	if got, err = notice.Describe(t.Context(), notice.CloudAWS, notice.Probe{AWS: imds.URL}); err != nil || got.InstanceID != "" || !got.Spot {
		t.Errorf("Describe(aws, no instance-id) = %+v, %v; want the machine without an ID and no error", got, err)
	}
}
