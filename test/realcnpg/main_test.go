package realcnpg

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/node"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// The one node of the package, with CNPG and setpoint installed; each
// test works in a namespace of its own.
var (
	setup   Setup
	theNode *node.Node
	kube    kubernetes.Interface
	pg      versioned.Interface
	// kit waits on the API at the real node's pace: a look a second,
	// its own timeouts three times the stand-in's.
	kit testkit.Kit
)

// parallel is how many of the tier's parallel tests run at once, unless
// -test.parallel says otherwise. Their time is mostly waiting for the
// node (Pods, CloudNativePG's reconciles, pg_upgrade), not CPU, so more
// than the machine's 2 cores' default fit: the tier is `make test`'s
// critical path (2,065 s at the default 2 in a run beside other load).
const parallel = "3"

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", parallel); err != nil {
			fmt.Fprintf(os.Stderr, "realcnpg: %v\n", err)
			os.Exit(1)
		}
	}
	s, err := FindSetup()
	if d := envtest.DecideOn(err); !d.Run {
		d.Report()
		os.Exit(d.Exit)
	}
	setup = s
	os.Exit(run(m))
}

// run brings the node up, installs CNPG and setpoint, runs the tests and
// stops the node whatever happened.
func run(m *testing.M) int {
	n, err := Start(context.Background(), setup, StartOptions{KeepDir: os.Getenv("SETPOINT_KEEP_NODE") == "1", Progress: os.Stderr})
	if err != nil {
		fmt.Fprintf(os.Stderr, "realcnpg: FAIL: %v\n", err)
		return 1
	}
	theNode = n
	defer func() {
		if err := n.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "realcnpg: stop the node: %v\n", err)
		}
	}()
	kube = kubernetes.NewForConfigOrDie(n.Config)
	pg = versioned.NewForConfigOrDie(n.Config)
	kit = testkit.Kit{Kube: kube, PG: pg, Poll: time.Second, Scale: 3,
		Sessions: sessionConfig, Describe: describe, WALArchived: testkit.ArchiverReported}
	return m.Run()
}
