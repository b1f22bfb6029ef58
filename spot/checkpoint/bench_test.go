package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	sdks3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/gpucost/gpucost/s3"
	"github.com/gpucost/gpucost/s3/s3test"
)

// The speed target: a Sync of new files runs at ≥ 80% of a plain transfer-manager upload of
// the same bytes to the same server. Both upload 4 files × 64 MiB, 4 at a time, to versitygw
// when it is installed and to gofakes3 otherwise.
const (
	benchFiles = 4
	benchSize  = 64 << 20
)

func benchServer(b *testing.B) (endpoint, bucket string) {
	if os.Getenv("GPUCOST_BENCH_S3") == "gofakes3" || !s3test.HaveVersity() {
		b.Log("server: gofakes3")
		return s3test.StartFake(b)
	}
	b.Log("server: versitygw")
	return s3test.StartVersity(b)
}

func benchDir(b *testing.B) string {
	dir := b.TempDir()
	for i := range benchFiles {
		write(b, dir, fmt.Sprintf("step-1/shard-%d.bin", i), random(benchSize))
	}
	return dir
}

func BenchmarkSync(b *testing.B) {
	endpoint, bucket := benchServer(b)
	store := s3test.Open(b, endpoint, bucket, "bench")
	dir := benchDir(b)
	// A periodic sync finds checkpoints written a while ago; one written within settleAge is also
	// hashed as it is read (TestUploadFreshFile).
	time.Sleep(settleAge)
	b.SetBytes(benchFiles * benchSize)
	for i := 0; b.Loop(); i++ {
		s := &Syncer{Store: store, Job: fmt.Sprintf("job-%d", i), Dir: dir, Parallel: benchFiles}
		st, err := s.Sync(context.Background())
		if err != nil || st.Uploaded != benchFiles {
			b.Fatalf("Sync = %+v, %v", st, err)
		}
	}
}

func BenchmarkTransferManagerUpload(b *testing.B) {
	endpoint, bucket := benchServer(b)
	client := sdkClient(s3test.Config(endpoint, bucket, ""))
	tm := transfermanager.New(client, func(o *transfermanager.Options) {
		o.PartSizeBytes = s3.PartSize
		o.MultipartUploadThreshold = 2 * s3.PartSize
		o.Concurrency = s3.Concurrency
	})
	dir := benchDir(b)
	b.SetBytes(benchFiles * benchSize)
	for i := 0; b.Loop(); i++ {
		var wg sync.WaitGroup
		for f := range benchFiles {
			wg.Go(func() {
				fh, err := os.Open(filepath.Join(dir, fmt.Sprintf("step-1/shard-%d.bin", f)))
				if err != nil {
					b.Error(err)
					return
				}
				defer fh.Close()
				_, err = tm.UploadObject(context.Background(), &transfermanager.UploadObjectInput{
					Bucket: aws.String(bucket), Key: aws.String(fmt.Sprintf("plain/%d/%d", i, f)), Body: fh})
				if err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
}

// sdkClient returns the AWS SDK's S3 client for cfg, the baseline's: the store itself makes
// signed requests of its own (s3/request.go).
func sdkClient(cfg s3.Config) *sdks3.Client {
	creds := aws.Credentials{AccessKeyID: cfg.AccessKey, SecretAccessKey: cfg.SecretKey}
	return sdks3.New(sdks3.Options{Region: "us-east-1", UsePathStyle: cfg.PathStyle, BaseEndpoint: aws.String(cfg.Endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })})
}
