// Package s3test starts a real S3 server for tests: versitygw, an S3
// gateway over a POSIX directory, listening on 127.0.0.1. The binary is
// $DT64_VERSITYGW, or the one built into the user's cache directory (by
// `make versitygw`, or here, on first use, with go install). A test that
// cannot have the server is skipped, unless CI is set: there it fails.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Version is the versitygw release the tests run.
const Version = "v1.8.0"

const module = "github.com/versity/versitygw/cmd/versitygw@" + Version

// Binary returns the path of the versitygw binary, building it into the
// cache directory if it is not there.
func Binary() (string, error) {
	if p := os.Getenv("DT64_VERSITYGW"); p != "" {
		return p, nil
	}
	dir, err := CacheDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "versitygw")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Test binaries of several packages may get here at once: one builds.
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := lockFile(lock); err != nil {
		return "", err
	}
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	cmd := exec.Command("go", "install", module)
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=-mod=mod")
	cmd.Dir = os.TempDir() // outside this module: its go.mod must not pin versitygw's dependencies
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s: %v\n%s", module, err, out)
	}
	return bin, nil
}

// CacheDir is where the binary is built: $DT64_CACHE/versitygw-VERSION,
// else the user cache directory's dt64/versitygw-VERSION.
func CacheDir() (string, error) {
	base := os.Getenv("DT64_CACHE")
	if base == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(c, "dt64")
	}
	return filepath.Join(base, "versitygw-"+Version), nil
}

// Server is a running versitygw.
type Server struct {
	Endpoint       string // http://127.0.0.1:PORT
	Access, Secret string
	Dir            string // the POSIX directory it serves: one subdirectory per bucket
	bin, addr      string
	mu             sync.Mutex
	cmd            *exec.Cmd
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Start starts a server for the test, stopped at its end. It skips the
// test when no server can be had and CI is unset.
func Start(t testing.TB) *Server {
	t.Helper()
	binOnce.Do(func() { binPath, binErr = Binary() })
	if binErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI: the S3 server is required: %v", binErr)
		}
		t.Skipf("no S3 server (versitygw %s could not be built): %v", Version, binErr)
	}
	s := &Server{Access: "dt64test", Secret: "dt64-secret-" + randomHex(8), Dir: t.TempDir(), bin: binPath}
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	s.addr, s.Endpoint = addr, "http://"+addr
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Restart starts the server (again, after Stop) on the same address and
// directory, and waits until it accepts connections.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return nil
	}
	cmd := exec.Command(s.bin, "--access", s.Access, "--secret", s.Secret, "--port", s.addr, "--quiet", "posix", s.Dir)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID=", "ROOT_SECRET_ACCESS_KEY=")
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd = cmd
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", s.addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("versitygw on %s did not start within 20s", s.addr)
}

// Stop kills the server (SIGKILL: as a crash would) and waits for it.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Env returns the environment variables that point the AWS SDK at the
// server: credentials, region and endpoint, and no instance metadata
// lookups.
func (s *Server) Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + s.Access, "AWS_SECRET_ACCESS_KEY=" + s.Secret,
		"AWS_REGION=us-east-1", "AWS_ENDPOINT_URL_S3=" + s.Endpoint,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null",
	}
}

// Setenv sets Env in the test's environment (t.Setenv: not for parallel
// tests).
func (s *Server) Setenv(t testing.TB) {
	for _, kv := range s.Env() {
		for i := range kv {
			if kv[i] == '=' {
				t.Setenv(kv[:i], kv[i+1:])
				break
			}
		}
	}
}

// Bucket creates a bucket with a fresh name and returns it.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	name := "b" + strconv.FormatInt(time.Now().UnixNano()%1e12, 36) + randomHex(3)
	c := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(s.Access, s.Secret, ""),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("creating bucket %s: %v", name, err)
	}
	return name
}
