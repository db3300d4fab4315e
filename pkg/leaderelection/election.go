package leaderelection

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// Config is the Lease and its timing.
type Config struct {
	Namespace     string
	Name          string
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// Identity defaults to hostname_uuid.
	Identity string
}

// ErrLeadershipLost is returned when the Lease was lost while leading: the
// process must exit, since its caches and in-flight work may now race the
// new leader.
var ErrLeadershipLost = errors.New("leader election lost")

// Elector runs a function while holding the Lease.
type Elector struct {
	cfg      Config
	elector  *leaderelection.LeaderElector
	watchdog *leaderelection.HealthzAdaptor
	lock     *campaignLock
	leading  chan struct{} // closed when run starts
	ran      chan struct{} // closed when run returns
	run      func(context.Context) error
	// runErr is why run returned while it should have kept running; set
	// before ran is closed.
	runErr   error
	stopWork context.Context
	// watcher watches the Lease for a release; no timeout, unlike the
	// renewing client.
	watcher kubernetes.Interface
}

// New prepares an election. The Lease is renewed through a dedicated
// client whose timeout is below the renew deadline, so that a hung request
// cannot hold the renewal past it.
func New(restCfg *rest.Config, cfg Config) (*Elector, error) {
	if cfg.Identity == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("hostname for leader identity: %w", err)
		}
		cfg.Identity = host + "_" + uuid.NewString()
	}
	leCfg := rest.CopyConfig(restCfg)
	leCfg.Timeout = cfg.RenewDeadline / 2
	leCfg = rest.AddUserAgent(leCfg, "leader-election")
	client, err := kubernetes.NewForConfig(leCfg)
	if err != nil {
		return nil, fmt.Errorf("leader-election client: %w", err)
	}
	watcher, err := kubernetes.NewForConfig(rest.AddUserAgent(rest.CopyConfig(restCfg), "leader-election-watch"))
	if err != nil {
		return nil, fmt.Errorf("leader-election watch client: %w", err)
	}
	return newElector(client, watcher, cfg)
}

// newElector prepares an election that renews through client and watches
// for a release through watcher.
func newElector(client, watcher kubernetes.Interface, cfg Config) (*Elector, error) {
	e := &Elector{
		cfg:      cfg,
		watcher:  watcher,
		watchdog: leaderelection.NewLeaderHealthzAdaptor(cfg.RenewDeadline + cfg.RetryPeriod),
		leading:  make(chan struct{}),
		ran:      make(chan struct{}),
		lock: &campaignLock{Interface: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: cfg.Namespace, Name: cfg.Name},
			Client:     client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: cfg.Identity},
		}},
	}
	var err error
	e.elector, err = leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            e.lock,
		LeaseDuration:   cfg.LeaseDuration,
		RenewDeadline:   cfg.RenewDeadline,
		RetryPeriod:     cfg.RetryPeriod,
		ReleaseOnCancel: true,
		WatchDog:        e.watchdog,
		Name:            cfg.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: e.onStartedLeading,
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("leader elector: %w", err)
	}
	// Only RunOrDie attaches the watchdog; without this its check passes
	// even when the leader has stopped renewing.
	e.watchdog.SetLeaderElection(e.elector)
	return e, nil
}

// Identity is this replica's identity in the Lease.
func (e *Elector) Identity() string { return e.cfg.Identity }

// Watchdog is a healthz check that fails when this replica leads but has
// not renewed the Lease in time.
func (e *Elector) Watchdog() *leaderelection.HealthzAdaptor { return e.watchdog }

// IsLeader reports whether this replica holds the Lease now.
func (e *Elector) IsLeader() bool { return e.elector.IsLeader() }

// Run campaigns for the Lease and calls run while leading. When ctx ends it
// stops run, waits for it to return (workers drained), and only then
// releases the Lease. It returns ErrLeadershipLost if the Lease is lost
// while ctx is still live, and run's error, after releasing the Lease, if
// run returns while it should still be running: a leader that runs nothing
// must not keep the Lease from a standby that would.
func (e *Elector) Run(ctx context.Context, run func(context.Context) error) error {
	logger := klog.FromContext(ctx).WithValues("lease", e.cfg.Namespace+"/"+e.cfg.Name, "identity", e.cfg.Identity)
	e.run, e.stopWork = run, ctx
	// The elector's context outlives ctx so the release happens after the
	// drain, not concurrently with it.
	leCtx, cancelLE := context.WithCancel(klog.NewContext(context.WithoutCancel(ctx), logger))
	defer cancelLE()
	done := make(chan struct{})
	go func() {
		defer close(done)
		logger.Info("Campaigning for leadership")
		for e.campaign(leCtx) {
			logger.V(2).Info("The leader released the Lease; campaigning again at once")
		}
	}()

	select {
	case <-ctx.Done():
	case <-done: // lost the Lease (Run returns only then, or on leCtx end)
	case <-e.ran: // run gave up by itself
	}
	select {
	case <-e.leading:
		<-e.ran // phase one: controllers stopped and drained
	default:
	}
	cancelLE() // phase two: release the Lease
	<-done
	released(e.cfg.Name)
	if e.runErr != nil {
		logger.Info("Controllers stopped while leading; Lease released", "err", e.runErr)
		return fmt.Errorf("while leading: %w", e.runErr)
	}
	if ctx.Err() == nil {
		return ErrLeadershipLost
	}
	logger.Info("Stopped; Lease released")
	return nil
}

// campaign runs the elector once. It reports true when the campaign was
// cut short because the holder released the Lease while this replica was a
// standby: a new campaign tries to acquire immediately.
func (e *Elector) campaign(leCtx context.Context) bool {
	ctx, cancel := context.WithCancel(leCtx)
	defer cancel()
	n := e.lock.reset()
	var released atomic.Bool
	go watchRelease(ctx, e.watcher, e.cfg, func() {
		// Not once this campaign has written itself as holder: it is
		// about to lead (see campaignLock).
		if e.lock.abandon(n) {
			released.Store(true)
			cancel()
		}
	})
	e.elector.Run(ctx)
	return released.Load() && leCtx.Err() == nil && !e.isLeading()
}

// isLeading reports whether this replica has started leading.
func (e *Elector) isLeading() bool {
	select {
	case <-e.leading:
		return true
	default:
		return false
	}
}

func (e *Elector) onStartedLeading(leCtx context.Context) {
	defer close(e.ran)
	close(e.leading)
	// Stop when either the process is stopping or the Lease is lost.
	ctx, cancel := context.WithCancel(leCtx)
	defer cancel()
	stop := context.AfterFunc(e.stopWork, cancel)
	defer stop()
	klog.FromContext(ctx).Info("Became leader")
	err := e.run(ctx)
	if ctx.Err() == nil { // neither stopping nor losing the Lease
		e.runErr = cmp.Or(err, errRunReturned)
	}
}

// errRunReturned is run's error when it returned early without one.
var errRunReturned = errors.New("controllers returned while leading")
