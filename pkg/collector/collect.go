package collector

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// collect takes one sample of pc, keeps it, and says whether it crossed
// an edge: its Level differs from the previous sample's (or, for the
// first sample since the operator started, from what status records).
func (c *Collector) collect(ctx context.Context, pc *pgv1.PostgresCluster) bool {
	s := c.take(ctx, pc)
	if ctx.Err() != nil {
		// Stopping (leadership lost): a sample cut short says nothing of
		// Postgres, and must neither be kept nor wake anyone.
		return false
	}
	from, to, edge, kept := c.keep(pc, s)
	if !kept {
		return false // deleted while sampling: keep nothing
	}
	if edge {
		klog.FromContext(ctx).V(2).Info("Postgres health crossed an edge", "cluster", klog.KObj(pc),
			"from", from, "to", to, "error", s.Err)
		c.deps.Metrics.edges.Inc()
	}
	return edge
}

// keep stores s as pc's last sample and exports it, unless pc is gone;
// it returns the level the sample is compared with, the sample's level,
// and whether that is an edge. The check that pc is still there and the
// store are one step under the lock forget takes: the informer drops a
// deleted cluster from its cache before it tells the handler (which
// forgets), so either keep sees it gone and stores nothing, or forget
// comes after and removes what keep stored. A deleted cluster never
// keeps a sample or a gauge series.
func (c *Collector) keep(pc *pgv1.PostgresCluster, s Sample) (from, to Level, edge, kept bool) {
	key := keyOf(pc)
	th := c.thresholds(pc)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.present(pc) {
		return Level{}, Level{}, false, false
	}
	prev, had := c.samples[key]
	// A sample of an earlier cluster of the same name (deleted and
	// created again while the watch was down) says nothing of this one.
	had = had && prev.uid == pc.UID
	from = prev.Level
	if !had {
		from = seed(pc, s, th)
	}
	s.Level = next(from, s, th)
	s.uid = pc.UID
	c.samples[key] = s
	c.deps.Metrics.observe(key, s)
	return from, s.Level, s.Level != from || !had && pc.Status.Postgres == nil && !s.Failed(), true
}

// present says whether the informer's cache still holds pc: the same
// object, not one deleted and created again under its name meanwhile.
func (c *Collector) present(pc *pgv1.PostgresCluster) bool {
	cur, err := c.clusters.PostgresClusters(pc.Namespace).Get(pc.Name)
	return err == nil && cur.UID == pc.UID
}

// thresholds are pc's usage thresholds.
func (c *Collector) thresholds(pc *pgv1.PostgresCluster) Thresholds {
	th := Thresholds{NearlyFull: c.opts.NearlyFull}
	if c.opts.WakeThresholds != nil {
		th.Wake = c.opts.WakeThresholds(pc)
	}
	return th
}

// seed is the level status records, the reference for the first sample
// after a start: a cluster whose status already says what the sample
// says is not woken (a restart of the operator costs no pass and no
// write). Usage bands come from the figures status recorded; without
// them, from the sample itself (the first record wakes the pass anyway).
func seed(pc *pgv1.PostgresCluster, s Sample, th Thresholds) Level {
	conds := pc.Status.Conditions
	l := Level{
		Reachable:     !meta.IsStatusConditionTrue(conds, pgv1.ConditionPostgresUnreachable),
		AcceptsWrites: !meta.IsStatusConditionTrue(conds, pgv1.ConditionNotAcceptingWrites),
		Saturated:     meta.IsStatusConditionTrue(conds, pgv1.ConditionConnectionsSaturated),
		NearlyFull:    meta.IsStatusConditionTrue(conds, pgv1.ConditionStorageNearlyFull),
		CommitsWait:   meta.IsStatusConditionTrue(conds, pgv1.ConditionSynchronousStandbysMissing),
	}
	if !l.Reachable {
		return Level{}
	}
	recorded := s
	if h := pc.Status.Postgres; h != nil {
		recorded = Sample{DatabaseBytes: h.UsedBytes, SizeBytes: h.SizeBytes}
		l.Synchronous = len(h.SynchronousStandbys)
	} else {
		l.Synchronous = len(s.SynchronousStandbys)
	}
	if f, ok := recorded.UsedFraction(); ok {
		l.Band = crossed(0, f, bands, UsageMargin)
		l.Wake = crossed(0, f, th.Wake, UsageMargin)
	}
	return l
}

// sampleOf is one bounded round trip to pc's primary: one connection over
// the verified TLS path the pipelines use, one statement, both within
// Options.Timeout, the statement also under the server's statement_timeout.
func (c *Collector) sampleOf(ctx context.Context, pc *pgv1.PostgresCluster) Sample {
	start := c.now()
	m := c.deps.Metrics
	m.inFlight.Inc()
	defer m.inFlight.Dec()
	s, err := c.roundTrip(ctx, pc)
	s.At = c.now()
	m.duration.Observe(s.At.Sub(start).Seconds())
	if err != nil {
		s = Sample{At: s.At, Err: err.Error(), SizeBytes: s.SizeBytes}
		m.samples.WithLabelValues("error").Inc()
		klog.FromContext(ctx).V(3).Info("Postgres health sample failed", "cluster", klog.KObj(pc), "err", err)
		return s
	}
	m.samples.WithLabelValues("ok").Inc()
	return s
}

func (c *Collector) roundTrip(ctx context.Context, pc *pgv1.PostgresCluster) (Sample, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	size := c.sizeOf(pc)
	t, err := c.target(ctx, pc)
	if err != nil {
		return Sample{SizeBytes: size}, err
	}
	conn, err := c.deps.Connector.Connect(ctx, t)
	c.deps.Metrics.connected(err)
	if err != nil {
		if caRejected(err) {
			// The CA may have rotated: read it again for the next
			// sample. Only then: a primary that is down would otherwise
			// cost an API read per sample for a CA that is still right.
			c.deps.CAs.Forget(pc.Namespace, naming.CASecret(pc.Name))
		}
		return Sample{SizeBytes: size}, redact(err, t.Password)
	}
	defer c.close(ctx, conn)
	c.deps.Metrics.statements.Inc()
	s, err := query(ctx, conn)
	s.SizeBytes = size
	return s, redact(err, t.Password)
}

// caRejected says whether the server's certificate failed verification
// against the CA the collector holds.
func caRejected(err error) bool {
	var v *tls.CertificateVerificationError
	return errors.As(err, &v)
}

// close ends the session. It says goodbye to the server even when the
// sample ran out of time, within a timeout of its own: a server that
// stopped reading cannot hold a worker.
func (c *Collector) close(ctx context.Context, conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.Timeout)
	defer cancel()
	_ = conn.Close(ctx)
}

// sizeOf is the data volume's size CNPG was asked for, 0 when unknown.
func (c *Collector) sizeOf(pc *pgv1.PostgresCluster) int64 {
	cl, err := c.deps.CNPGClusters.Clusters(pc.Namespace).Get(pc.Name)
	if err != nil || cl.Spec.Storage == nil || cl.Spec.Storage.Size == "" {
		return 0
	}
	q, err := resource.ParseQuantity(cl.Spec.Storage.Size)
	if err != nil {
		return 0
	}
	return q.Value()
}

// errNoCredentials: no Secret to log in with, or no CA, is there (yet).
var errNoCredentials = errors.New("neither the setpoint_monitor Secret nor a superuser Secret is published, or the CA is not available")

// target is how to reach pc's primary: as the superuser while superuser
// access is on (status names its Secret), else as the cluster's
// setpoint_monitor (pg_monitor reads every figure of a sample). The
// superuser comes first where there is one because only it may use the
// connection slots Postgres reserves (superuser_reserved_connections): a
// sample is most needed when the other slots are all taken, and the
// monitor is then refused ("remaining connection slots are reserved",
// reported as unreachable). Without either there is no sample.
func (c *Collector) target(ctx context.Context, pc *pgv1.PostgresCluster) (postgres.Target, error) {
	data, err := c.credentials(ctx, pc)
	if err != nil {
		return postgres.Target{}, err
	}
	ca, err := c.deps.CAs.Get(ctx, pc.Namespace, naming.CASecret(pc.Name))
	if err != nil {
		return postgres.Target{}, err
	}
	if data == nil || len(ca) == 0 {
		return postgres.Target{}, errNoCredentials
	}
	return postgres.Target{
		Namespace: pc.Namespace, Cluster: pc.Name, Database: "postgres",
		User: string(data["username"]), Password: string(data["password"]), CACert: ca,
		StatementTimeout: c.opts.Timeout,
	}, nil
}

// credentials are the username and password target logs in with, nil
// when status names no Secret. The generated superuser Secret is cached,
// an external one is read from the API (not ours, so not cached); the
// monitor's Secret is ours, so cached, and used only when it is
// controlled by pc (status can be edited).
func (c *Collector) credentials(ctx context.Context, pc *pgv1.PostgresCluster) (map[string][]byte, error) {
	r := pc.Status.Resources
	if r == nil {
		return nil, nil
	}
	if ref := r.SuperUserSecretRef; ref != nil {
		data, err := c.superuserCredentials(ctx, pc.Namespace, ref.Name)
		if err != nil || data != nil {
			return data, err
		}
	}
	if ref := r.MonitorSecretRef; ref != nil {
		sec, err := c.deps.Secrets.Secrets(pc.Namespace).Get(ref.Name)
		if err == nil && controlledBy(sec, pc) {
			return sec.Data, nil
		}
	}
	return nil, nil
}

// superuserCredentials reads the superuser Secret name, nil when missing.
func (c *Collector) superuserCredentials(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	if sec, err := c.deps.Secrets.Secrets(namespace).Get(name); err == nil {
		return sec.Data, nil
	}
	sec, err := c.deps.Kube.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read superuser secret: %w", err)
	}
	return sec.Data, nil
}

func controlledBy(obj metav1.Object, pc *pgv1.PostgresCluster) bool {
	ref := metav1.GetControllerOfNoCopy(obj)
	return ref != nil && ref.UID == pc.UID
}
