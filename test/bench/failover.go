package main

import (
	"context"
	"fmt"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
)

type failoverResult struct {
	afterKill time.Duration
	afterTerm time.Duration
	termExit  time.Duration // SIGTERM until the old leader exited
}

type failoverEnv struct {
	kube       kubernetes.Interface
	pg         versioned.Interface
	bin        string
	kubeconfig string
	logDir     string
	ns         string
	leaseID    string
}

func (f *failoverEnv) holder(ctx context.Context) string {
	l, err := f.kube.CoordinationV1().Leases("setpoint-system").Get(ctx, f.leaseID, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func (f *failoverEnv) start(ctx context.Context, name string) (*operatorProc, error) {
	// Default lease timings (15s/10s/2s): nothing overrides them here.
	return startOperator(ctx, f.bin, f.kubeconfig, f.logDir, name,
		"--namespace", f.ns, "--leader-election-id", f.leaseID)
}

// probe creates a PostgresCluster naming a missing class and returns when
// some leader has reported it Failed.
func (f *failoverEnv) probe(ctx context.Context, name string, timeout time.Duration) error {
	c := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns},
		Spec: pgv1.PostgresClusterSpec{Class: "no-such-class"}}
	if _, err := f.pg.PostgresV1alpha1().PostgresClusters(f.ns).Create(ctx, c, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create probe %s: %w", name, err)
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		got, err := f.pg.PostgresV1alpha1().PostgresClusters(f.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		if err == nil && got.Status.Phase == pgv1.PhaseFailed {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return fmt.Errorf("probe %s not reconciled within %v", name, timeout)
}

func (f *failoverEnv) waitHolder(ctx context.Context, want string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if f.holder(ctx) == want {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("lease %s held by %q, want %q", f.leaseID, f.holder(ctx), want)
}

// runFailover: replica a leads, b stands by; SIGKILL a → time until b
// reconciles a new probe. Then c stands by; SIGTERM b → time until c
// reconciles another probe.
func runFailover(ctx context.Context, f *failoverEnv) (res failoverResult, err error) {
	var procs []*operatorProc
	defer func() {
		for _, p := range procs {
			p.kill()
		}
	}()
	a, err := f.start(ctx, f.leaseID+"-a")
	if err != nil {
		return res, err
	}
	procs = append(procs, a)
	if err := f.waitHolder(ctx, a.name, 60*time.Second); err != nil {
		return res, err
	}
	if err := f.probe(ctx, "probe-0", 30*time.Second); err != nil {
		return res, err
	}
	b, err := f.start(ctx, f.leaseID+"-b")
	if err != nil {
		return res, err
	}
	procs = append(procs, b)
	time.Sleep(3 * time.Second) // b has tried the Lease at least once and stands by

	killed := time.Now()
	a.signal(syscall.SIGKILL)
	if err := f.probe(ctx, "probe-kill", 90*time.Second); err != nil {
		return res, fmt.Errorf("after SIGKILL: %w", err)
	}
	res.afterKill = time.Since(killed)

	c, err := f.start(ctx, f.leaseID+"-c")
	if err != nil {
		return res, err
	}
	procs = append(procs, c)
	time.Sleep(3 * time.Second)
	termed := time.Now()
	exited := make(chan time.Duration, 1)
	go func() { <-b.done; exited <- time.Since(termed) }()
	b.signal(syscall.SIGTERM)
	if err := f.probe(ctx, "probe-term", 90*time.Second); err != nil {
		return res, fmt.Errorf("after SIGTERM: %w", err)
	}
	res.afterTerm = time.Since(termed)
	select {
	case res.termExit = <-exited:
	case <-time.After(30 * time.Second):
		return res, fmt.Errorf("%s did not exit within 30s of SIGTERM", b.name)
	}
	return res, nil
}
