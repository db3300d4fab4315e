package sandbox

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/test/envtest"
)

// `make demo` works: the samples become Ready and usable in the sandbox.
func TestDemo(t *testing.T) {
	// The same binaries the sandbox will start: SETPOINT_BIN_DIR's, else bin/.
	if _, err := envtest.BinDir(); err != nil && os.Getenv(envtest.RequireEnv) != "1" {
		t.Skipf("control plane not built: %v", err)
	}
	sb, err := Start(t.Context(), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("start sandbox: %v", err)
	}
	defer sb.Stop()
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- sb.RunOperator(ctx, "0") }()
	defer func() { stop(); <-done }()

	var out bytes.Buffer
	if err := sb.Demo(t.Context(), &out, filepath.Join("..", "..", "..", "..", "manifests", "samples")); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "SELECT count(*) FROM items -> 1") {
		t.Fatalf("demo did not show a usable database:\n%s", out.String())
	}
	t.Log(out.String())
}
