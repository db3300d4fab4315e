package kubectl_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/commands"
	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/sandbox/internal/sandbox"
)

const ns = "default"

// world is a started sandbox with the operator running and the samples
// applied and Ready.
type world struct {
	sb   *sandbox.Sandbox
	kube kubernetes.Interface
	pg   versioned.Interface
}

func start(t *testing.T) *world {
	t.Helper()
	if _, err := envtest.BinDir(); err != nil && os.Getenv(envtest.RequireEnv) != "1" {
		t.Skipf("control plane not built: %v", err)
	}
	sb, err := sandbox.Start(t.Context(), sandbox.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("start sandbox: %v", err)
	}
	t.Cleanup(sb.Stop)
	ctx, stop := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan error, 1)
	go func() { done <- sb.RunOperator(ctx, "0") }()
	t.Cleanup(func() { stop(); <-done })
	w := &world{sb: sb, kube: kubernetes.NewForConfigOrDie(sb.Env.Config), pg: versioned.NewForConfigOrDie(sb.Env.Config)}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "manifests", "samples", "*.yaml"))
	if _, err := envtest.ApplyFiles(t.Context(), sb.Env.Config, "test", files...); err != nil {
		t.Fatalf("apply samples: %v", err)
	}
	w.waitDatabase(t, "shop-app", func(db *pgv1.PostgresDatabase) bool {
		return db.Status.Phase == pgv1.PhaseReady && db.Status.ObservedGeneration == db.Generation
	})
	return w
}

// waitDatabase polls the PostgresDatabase until ok holds.
func (w *world) waitDatabase(t *testing.T, name string, ok func(*pgv1.PostgresDatabase) bool) *pgv1.PostgresDatabase {
	t.Helper()
	var last *pgv1.PostgresDatabase
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		db, err := w.pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = db
		return ok(db), nil
	})
	if err != nil {
		t.Fatalf("PostgresDatabase %s: %v (last status %+v)", name, err, last)
	}
	return last
}

// result is one run of the plugin.
type result struct {
	out, errOut string
	err         error
}

// run runs `kubectl setpoint CMD --kubeconfig … -n default ARGS` in process,
// with the real flag parsing, clients and commands; opts may replace the
// forwarder and psql (see testkit.HostMapForwarder).
func (w *world) run(t *testing.T, opts *commands.Options, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	if opts == nil {
		opts = &commands.Options{}
	}
	opts.Streams = genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	root := commands.NewRoot(opts)
	// The connection flags right after the subcommand: what follows "--"
	// is psql's.
	root.SetArgs(append([]string{args[0], "--kubeconfig", w.sb.KubeconfigPath, "--namespace", ns}, args[1:]...))
	err := root.ExecuteContext(t.Context())
	return result{out: out.String(), errOut: errOut.String(), err: err}
}
