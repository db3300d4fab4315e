package cnpgsim

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// CNPG's phase strings, exactly as CNPG writes them.
const (
	PhaseHealthy               = "Cluster in healthy state"
	PhaseSettingUpPrimary      = "Setting up primary"
	PhaseFailingOver           = "Failing over"
	PhaseApplyingConfiguration = "Applying configuration"
)

var everything = labels.Everything()

// syncCluster makes one Cluster's world match its spec: Secrets, Services,
// a running server with the wanted access, parameters and roles, the host
// map, and a status that says where it stands.
func (s *Simulator) syncCluster(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	cluster, err := s.clusters.Clusters(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return 0, s.clusterGone(ctx, key, s.instance(key) != nil)
	}
	if err != nil {
		return 0, fmt.Errorf("get cluster: %w", err)
	}
	if cluster.DeletionTimestamp != nil {
		return 0, s.clusterGone(ctx, key, true)
	}
	inst, err := s.instanceFor(ctx, cluster)
	if err != nil {
		return 0, err
	}
	inst.mu.Lock()
	defer inst.mu.Unlock()
	// Status decisions compare with the status last written, which the
	// cache may not have yet (our own previous write): read it live.
	fresh, err := s.cnpg.CNPGV1().Clusters(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil // the delete event follows
	}
	if err != nil {
		return 0, fmt.Errorf("get cluster: %w", err)
	}
	if fresh.UID != inst.uid {
		return 0, nil // recreated: the event for the new one follows
	}
	r := &clusterRun{s: s, inst: inst, cluster: fresh, faults: s.faultsFor(key)}
	return r.sync(ctx)
}

// clusterGone removes a deleted Cluster's server and releases its
// DatabaseRoles as CNPG's operator does on a Cluster's deletion. When the
// Cluster was not known (a key enqueued for a Cluster that never existed,
// or a retry after the teardown) only those still holding the finalizer
// are released.
func (s *Simulator) clusterGone(ctx context.Context, key cache.ObjectName, known bool) error {
	s.teardown(ctx, key)
	s.catalogs.pick(key, "")
	return s.releaseDatabaseRoles(ctx, key, known)
}

// clusterRun is one sync of one Cluster; cluster is refreshed by each
// status write so later writes do not conflict with earlier ones.
type clusterRun struct {
	s       *Simulator
	inst    *instance
	cluster *cnpgv1.Cluster
	faults  faults
	roles   *cnpgv1.ManagedRoles
	// requested is the image and major the spec asks for (reconcileImage).
	requested cnpgv1.ImageInfo
}

func (r *clusterRun) sync(ctx context.Context) (time.Duration, error) {
	s, b := r.s, r.inst.backend
	// CNPG picks the image before anything else, and stops there when it
	// cannot (image_catalog.go).
	if done, err := r.reconcileImage(ctx); done || err != nil {
		return 0, err
	}
	if msg := replicaRefusal(r.cluster); msg != "" {
		return 0, r.writeStatus(ctx, phaseInvalid, false, msg)
	}
	if err := s.ensureCASecret(ctx, r.cluster, b.ca); err != nil {
		return 0, err
	}
	if err := s.ensureServices(ctx, r.cluster); err != nil {
		return 0, err
	}
	if err := s.ensureGeneratedSuperuserSecret(ctx, r.cluster); err != nil {
		return 0, err
	}
	if done, requeue, err := r.majorUpgrade(ctx); done || err != nil {
		return requeue, err
	}
	if r.faults.stopped {
		b.srv.stop()
		return 0, r.writeStatus(ctx, PhaseFailingOver, false, "Primary instance is not running")
	}
	if done, requeue, err := r.bootstrapRecovery(ctx); done || err != nil {
		return requeue, err
	}
	// A new Cluster always shows "Setting up primary" first, even when a
	// shared server is already up.
	// After a major upgrade (or its rollback: the phase is still the
	// upgrade's) the instances start again, which CNPG reports as not yet
	// active.
	if prev := r.cluster.Status.Phase; !b.srv.running() || prev == "" || prev == PhaseMajorUpgrade {
		phase, reason := PhaseSettingUpPrimary, ""
		switch {
		case prev == PhaseMajorUpgrade:
			phase, reason = PhaseWaitingForInstances, reasonWaitingForInstances
		case prev != "" && prev != PhaseSettingUpPrimary && (prev != PhaseImageCatalogError || r.instanceRan()):
			// It ran before and is gone: CNPG would be promoting a replica.
			// (A Cluster held at first by its catalog has not run.)
			phase = PhaseFailingOver
		}
		if err := r.writeStatus(ctx, phase, false, reason); err != nil {
			return 0, err
		}
	}
	var archiveRetry time.Duration
	archived := false
	if b.srv.initialized() {
		var err error
		if archiveRetry, err = r.archiveStep(ctx); err != nil {
			return 0, err
		}
		archived = true
	}
	clientCA, err := r.clientCATrust()
	if err != nil {
		return 0, err
	}
	started, err := b.converge(ctx, r.hba(), r.certNames(), r.cluster.Namespace+"/"+r.cluster.Name, clientCA)
	if err != nil {
		return 0, r.recoveryError(ctx, err)
	}
	if err := s.ensurePoolerSecret(ctx, r.cluster); err != nil {
		return 0, err
	}
	if !archived {
		if archiveRetry, err = r.archiveStep(ctx); err != nil {
			return 0, err
		}
	}
	if r.inst.recovering {
		if err := r.awaitPromotion(ctx); err != nil {
			return 0, r.recoveryError(ctx, err)
		}
		r.inst.recovering = false
		klog.FromContext(ctx).Info("Recovery ended, promoted", "cluster", klog.KObj(r.cluster))
	}
	if started || r.inst.readyAt.IsZero() {
		r.inst.readyAt = time.Now()
	}
	if err := s.hostMap.set(r.inst.key, r.hostEntries()); err != nil {
		return 0, err
	}
	if err := r.applySuperuser(ctx); err != nil {
		return 0, err
	}
	if err := r.applyParameters(ctx); err != nil {
		return 0, err
	}
	retry, err := r.applyRoles(ctx)
	if err != nil {
		return 0, err
	}
	resizing := r.resizeVolumes(time.Now())
	if wait := time.Until(r.inst.readyAt.Add(s.healthyDelay(r.faults))); wait > 0 {
		return wait, r.writeStatus(ctx, PhaseSettingUpPrimary, false, "")
	}
	if err := r.rejoinReplicas(ctx); err != nil {
		return 0, err
	}
	wasReady := r.cluster.Status.ReadyInstances > 0
	phase := PhaseHealthy
	if r.faults.phase != "" {
		phase = r.faults.phase
	}
	if err := r.writeStatus(ctx, phase, true, ""); err != nil {
		return 0, err
	}
	if !wasReady {
		s.enqueueDependents(ctx, r.cluster)
	}
	for _, wait := range []time.Duration{archiveRetry, resizing} {
		if wait > 0 && (retry == 0 || wait < retry) {
			retry = wait
		}
	}
	return retry, nil
}

func (r *clusterRun) hba() hbaConfig {
	if r.inst.backend.shared {
		return hbaConfig{trustSuperuser: true}
	}
	var lines []string
	if pg := r.cluster.Spec.PostgresConfiguration; pg != nil {
		lines = pg.PgHBA
	}
	return hbaConfig{userLines: lines}
}

// serviceNames are the Cluster's Services and its Poolers' Services.
func (r *clusterRun) serviceNames() []string {
	name := r.cluster.Name
	names := []string{name + "-rw", name + "-ro", name + "-r"}
	poolers, err := r.s.poolers.Poolers(r.cluster.Namespace).List(everything)
	if err != nil {
		return names
	}
	for _, p := range poolers {
		if p.Spec.Cluster.Name == name && p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	return names
}

// certNames are the server certificate's names as CNPG issues them: the
// Cluster's own Services (-rw, -ro, -r; not its Poolers', although
// PgBouncer serves this certificate too) and spec.certificates'
// serverAltDNSNames.
func (r *clusterRun) certNames() []string {
	if r.inst.backend.shared {
		return sharedSANs(r.s.instanceNamespaces())
	}
	var sans []string
	name := r.cluster.Name
	for _, svc := range []string{name + "-rw", name + "-ro", name + "-r"} {
		sans = append(sans, serviceHosts(r.cluster.Namespace, svc)...)
	}
	if c := r.cluster.Spec.Certificates; c != nil {
		sans = append(sans, c.ServerAltDNSNames...)
	}
	return sans
}

func (r *clusterRun) hostEntries() map[string]string {
	entries := map[string]string{}
	addr := r.inst.backend.srv.addr()
	for _, svc := range r.serviceNames() {
		// The bare name is left out: it means different Services in
		// different namespaces.
		for _, host := range serviceHosts(r.cluster.Namespace, svc)[1:] {
			entries[host+":5432"] = addr
		}
	}
	return entries
}

func (s *Simulator) instanceNamespaces() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var namespaces []string
	for key := range s.instances {
		namespaces = append(namespaces, key.Namespace)
	}
	return namespaces
}

// enqueueDependents looks again at what waited for the Cluster to be ready.
func (s *Simulator) enqueueDependents(ctx context.Context, cluster *cnpgv1.Cluster) {
	dbs, err := s.databases.Databases(cluster.Namespace).List(everything)
	if err != nil {
		return
	}
	for _, db := range dbs {
		if db.Spec.Cluster.Name == cluster.Name {
			s.databaseLoop.add(cache.ObjectName{Namespace: db.Namespace, Name: db.Name})
		}
	}
	klog.FromContext(ctx).V(4).Info("Cluster became ready", "cluster", klog.KObj(cluster))
}
