// Package e2e_test runs the setpoint binary, as separate processes, against
// the real control plane: leader election, failover, and (with the CNPG
// stand-in and real Postgres) the pipelines end to end.
package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/test/cnpgsim"
	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

var (
	env      *envtest.Environment
	kube     kubernetes.Interface
	pg       versioned.Interface
	setpoint string // path of the built operator binary
	buildErr error
	sim      *cnpgsim.Simulator
	hostMap  string // the stand-in's host map, for --postgres-host-map
	// kit waits on the API at the stand-in's pace.
	kit testkit.Kit
)

func TestMain(m *testing.M) {
	envtest.RunMain(m, envtest.Options{}, func(e *envtest.Environment) {
		env = e
		kube = kubernetes.NewForConfigOrDie(e.Config)
		pg = versioned.NewForConfigOrDie(e.Config)
		kit = testkit.Kit{Kube: kube, PG: pg, Poll: 100 * time.Millisecond, Scale: 1,
			Sessions: standInSessions, WALArchived: inStandInStore}
		setpoint = filepath.Join(e.Dir(), "setpoint")
		buildErr = build(setpoint)
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "setpoint-system"}}
		if _, err := kube.CoreV1().Namespaces().Create(contextForMain(), ns, metav1.CreateOptions{}); err != nil && buildErr == nil {
			buildErr = fmt.Errorf("create setpoint-system: %w", err)
		}
		if buildErr == nil {
			buildErr = startSimulator(e)
		}
	})
}

// startSimulator runs the CNPG stand-in with real Postgres for the whole
// package; the environment stops it first on teardown.
func startSimulator(e *envtest.Environment) error {
	// In a directory of its own, which the in-cluster test mounts into
	// its Pods.
	hostMap = filepath.Join(e.Dir(), "hostmap", "hostmap.json")
	var err error
	sim, err = cnpgsim.New(e.Config, cnpgsim.Options{HostMapFile: hostMap, SecretRace: true})
	if err != nil {
		return fmt.Errorf("CNPG stand-in: %w", err)
	}
	ctx, cancel := context.WithCancel(contextForMain())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := sim.Run(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "CNPG stand-in stopped: %v\n", err)
		}
	}()
	e.AddCleanup(func() { cancel(); <-done })
	return nil
}

// build compiles cmd/setpoint once for the package.
func build(out string) error {
	cmd := exec.Command("go", "build", "-o", out, "github.com/setpoint-dev/setpoint/cmd/setpoint")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build setpoint: %w", err)
	}
	return nil
}
