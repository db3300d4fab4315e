package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// provisionerComponent owns the CNPG Cluster: it applies only our fields
// and maps CNPG's phase onto ours. It also empties the managed.roles an
// earlier setpoint wrote (provisioner_roles_release.go).
//
// Its whole story is in this file and the files named provisioner_*.go,
// in the order a pass reads them:
//   - Reconcile: a CNPG Cluster lost after it was Ready, and one created
//     again on request (provisioner_lost.go); the spec we own, with its
//     pg_hba lines (provisioner_hba.go) and a restore's bootstrap
//     (provisioner_restore.go); the managed.roles of an earlier setpoint
//     released (provisioner_roles_release.go);
//   - Observe, as the pipeline runs it (settledProvisioner, below): CNPG's
//     status held still while it flaps (provisioner_settle.go), a webhook's
//     refusal (provisioner_admission.go), CNPG's phase mapped onto ours
//     (provisioner_phase.go) and, once CNPG is healthy, Postgres checked to
//     run our settings (provisioner_parameters.go).
//
// What it reads of other components' rooms is their decisions: the
// storage mark (storage_mark.go), the archive folder (archive_name.go),
// the Poolers' host names (pooler_names.go), the superuser Secret
// (contracts.Secret).
type provisionerComponent struct{}

// provisionerState is what the provisioner keeps in one pass, between its
// Reconcile and its Observe (pass.provisioner; its files alone write it).
// Later components see the CNPG Cluster through the CNPGCluster contract,
// observedCNPG or appliedCNPG.
type provisionerState struct {
	// cnpg is the CNPG Cluster as this pass left it (the snapshot keeps
	// what was read).
	cnpg *cnpgv1.Cluster
	// specApplied is set when this pass changed an existing CNPG Cluster.
	specApplied bool
	// loss is a CNPG Cluster lost after it was Ready (nothing is written
	// to it); recreate, one created again on request (provisioner_lost.go).
	loss     *loss
	recreate *recreation
	// live is the CNPG Cluster as read from the API server when the loss
	// check could not trust the cache; the snapshot keeps what it read.
	live *liveRead
}

// liveRead is one read of the CNPG Cluster from the API server; cnpg is
// nil when there was none.
type liveRead struct{ cnpg *cnpgv1.Cluster }

// observedCNPG is the CNPG Cluster as this pass knows it: read live when
// the loss check had to, else the snapshot's. Components before and after
// the provisioner read it.
func (p *pass) observedCNPG() *cnpgv1.Cluster {
	if l := p.provisioner.live; l != nil {
		return l.cnpg
	}
	return p.obs.cnpg
}

// appliedCNPG is the CNPG Cluster as the provisioner left it in this pass:
// nil when it did not run or wrote nothing it could read back.
func (p *pass) appliedCNPG() *cnpgv1.Cluster { return p.provisioner.cnpg }

// specHashAnnotation records the hash of our last applied fields, so that
// a field we stop setting is noticed even though the cache holds no
// managedFields.
const specHashAnnotation = "postgres.setpoint.dev/spec-hash"

const barmanPlugin = "barman-cloud.cloudnative-pg.io"

func (provisionerComponent) Name() string      { return "provisioner" }
func (provisionerComponent) Condition() string { return pgv1.ConditionProvisionerReady }
func (provisionerComponent) Requires() []contractKey {
	return []contractKey{contractSecret, contractCertificates}
}
func (provisionerComponent) Provides() []contractKey { return []contractKey{contractCNPGCluster} }

func (provisionerComponent) Reconcile(ctx context.Context, p *pass) error {
	client := p.deps.pg.CNPGV1().Clusters(p.cluster.Namespace)
	cur, err := claimCached(ctx, p, "CNPG Cluster", p.obs.cnpg, client, p.cluster.Name)
	if err != nil {
		return err
	}
	// A CNPG Cluster lost after it was Ready is not created again empty
	// unless asked (provisioner_lost.go).
	if cur, err = checkLoss(ctx, p, cur); err != nil || p.provisioner.loss != nil {
		return err
	}
	p.provisioner.cnpg = cur
	if p.cluster.Spec.Topology != nil && p.want.ObjectStore == nil {
		return errTopologyWithoutArchive
	}
	spec := desiredClusterSpec(p)
	hash, err := hashOf(spec)
	if err != nil {
		return err
	}
	if cur != nil && cur.Annotations[specHashAnnotation] == hash && clusterMatches(cur, p) && markMatches(cur, p.want.StorageMark) &&
		restartMatches(cur, p.cluster) {
		return releaseManagedRoles(ctx, p)
	}
	annotations := map[string]string{specHashAnnotation: hash}
	if p.provisioner.recreate != nil {
		maps.Copy(annotations, p.provisioner.recreate.annotations())
	}
	ac := cnpgac.Cluster(p.cluster.Name, p.cluster.Namespace).
		WithLabels(ownership.ManagedLabels(ownership.ClusterLabel, p.cluster.Name)).
		WithAnnotations(withRestart(withStorageMark(annotations, p.want.StorageMark), p.cluster)).
		WithOwnerReferences(ownership.OwnerRefApply(p.cluster, gvk)).
		WithSpec(spec)
	applied, err := client.Apply(ctx, ac, applyOpts)
	if err != nil {
		return fmt.Errorf("apply CNPG cluster: %w", err)
	}
	p.provisioner.specApplied = cur != nil
	p.provisioner.cnpg = applied
	if cur == nil {
		if p.provisioner.recreate != nil {
			return recreated(ctx, p)
		}
		return nil // a new CNPG Cluster lists no roles
	}
	return releaseManagedRoles(ctx, p)
}

// desiredClusterSpec is the part of the CNPG Cluster spec we own.
func desiredClusterSpec(p *pass) *cnpgac.ClusterSpecApplyConfiguration {
	w := p.want
	storage := cnpgac.StorageConfiguration().WithSize(w.StorageSize.String())
	if w.StorageClass != nil {
		storage.WithStorageClass(*w.StorageClass)
	}
	spec := cnpgac.ClusterSpec().
		WithInstances(int(w.Instances)).
		// Always said, false included: CNPG's default is false too, but a
		// CNPG Cluster an earlier setpoint turned on must be turned off.
		WithEnableSuperuserAccess(w.Superuser).
		WithStorage(storage)
	// One of the two, never both (CNPG refuses both): the field left out
	// is ours, so applying without it removes it. A major upgrade that has
	// not reached pg_upgrade, or failed, holds the data's image (upgrade.go).
	name, catalog := imageApplied(p)
	if catalog != nil {
		spec.WithImageCatalogRef(catalog)
	} else {
		spec.WithImageName(name)
	}
	if w.Superuser {
		// Without access the field goes (it is ours): CNPG would ignore
		// the Secret, and setpoint deletes it (superuser_retire.go).
		spec.WithSuperuserSecret(cnpgac.LocalObjectReference().WithName(p.contracts.Secret.Name))
	}
	pc := cnpgac.PostgresConfiguration().WithPgHBA(hbaLines(w)...)
	if len(w.Settings.PostgreSQLConfig) > 0 {
		pc.WithParameters(w.Settings.PostgreSQLConfig)
	}
	if sync := synchronousOf(w.Settings.Durability); sync != nil {
		pc.WithSynchronous(sync)
	}
	spec.WithPostgresConfiguration(pc)
	if r := w.Settings.Resources; r != nil {
		rr := corev1ac.ResourceRequirements()
		if len(r.Requests) > 0 {
			rr.WithRequests(r.Requests)
		}
		if len(r.Limits) > 0 {
			rr.WithLimits(r.Limits)
		}
		spec.WithResources(rr)
	}
	if w.ObjectStore != nil {
		spec.WithPlugins(cnpgac.PluginConfiguration().WithName(barmanPlugin).WithIsWALArchiver(true).
			WithParameters(map[string]string{"barmanObjectName": naming.ObjectStore(p.cluster.Name), "serverName": archiveServerName(p)}))
	}
	if w.SnapshotClass != "" {
		// Volume-snapshot ScheduledBackups take the class from the Cluster.
		spec.WithBackup(cnpgac.BackupConfiguration().WithVolumeSnapshot(
			cnpgac.VolumeSnapshotConfiguration().WithClassName(w.SnapshotClass)))
	}
	certs := cnpgac.CertificatesConfiguration().
		WithClientCASecret(naming.ClientCASecret(p.cluster.Name)).
		WithReplicationTLSSecret(naming.ReplicationTLSSecret(p.cluster.Name))
	if names := poolerDNSNames(p); len(names) > 0 {
		certs.WithServerAltDNSNames(names...)
	}
	spec.WithCertificates(certs)
	withPlacement(spec, w.Settings.Placement)
	withServiceAccount(spec, w.ObjectStore)
	withRestore(p, spec)
	withTopology(p, spec)
	withRecreate(p, spec)
	return spec
}

// clusterMatches compares the observed Cluster with what we want, field by
// field we own; defaults CNPG or the API server add elsewhere are not drift.
func clusterMatches(cur *cnpgv1.Cluster, p *pass) bool {
	w, s := p.want, cur.Spec
	if s.Instances != int(w.Instances) || !imageMatches(s, p) ||
		hasSuperuserAccess(cur) != w.Superuser ||
		s.Storage == nil || s.Storage.Size != w.StorageSize.String() {
		return false
	}
	// Without access a superuserSecret left by another field manager is
	// not drift: CNPG ignores it, and our apply could not remove it.
	if w.Superuser && (s.SuperuserSecret == nil || s.SuperuserSecret.Name != p.contracts.Secret.Name) {
		return false
	}
	if w.StorageClass != nil && (s.Storage.StorageClass == nil || *s.Storage.StorageClass != *w.StorageClass) {
		return false
	}
	var params map[string]string
	var hba []string
	if s.PostgresConfiguration != nil {
		params, hba = s.PostgresConfiguration.Parameters, s.PostgresConfiguration.PgHBA
	}
	for k, v := range w.Settings.PostgreSQLConfig {
		if params[k] != v {
			return false
		}
	}
	if !slices.Equal(hba, hbaLines(w)) || !synchronousMatches(s.PostgresConfiguration, w.Settings.Durability) {
		return false
	}
	if r := w.Settings.Resources; r != nil {
		if s.Resources == nil || !apiequality.Semantic.DeepEqual(s.Resources.Requests, r.Requests) ||
			!apiequality.Semantic.DeepEqual(s.Resources.Limits, r.Limits) {
			return false
		}
	}
	if w.SnapshotClass != "" && (s.Backup == nil || s.Backup.VolumeSnapshot == nil || s.Backup.VolumeSnapshot.ClassName != w.SnapshotClass) {
		return false
	}
	if s.Monitoring != nil && s.Monitoring.EnablePodMonitor != nil && *s.Monitoring.EnablePodMonitor {
		// Set by an earlier setpoint, and deprecated by CNPG 1.30: applying
		// without it removes it (it is our field); the podMonitor component
		// keeps a PodMonitor of our own instead.
		return false
	}
	if !certificatesMatch(s.Certificates, p) || !placementMatches(s, w.Settings.Placement) || !serviceAccountMatches(s, w.ObjectStore) ||
		!topologyMatches(s, p.cluster) {
		return false
	}
	hasPlugin := slices.ContainsFunc(s.Plugins, func(pc cnpgv1.PluginConfiguration) bool { return pc.Name == barmanPlugin })
	return hasPlugin == (w.ObjectStore != nil)
}

// certificatesMatch: the pooler names on the server certificate, and
// setpoint's client CA and replication certificate in place of CNPG's
// (certificates.go).
func certificatesMatch(c *cnpgv1.CertificatesConfiguration, p *pass) bool {
	if c == nil {
		c = &cnpgv1.CertificatesConfiguration{}
	}
	return slices.Equal(c.ServerAltDNSNames, poolerDNSNames(p)) &&
		c.ClientCASecret == naming.ClientCASecret(p.cluster.Name) &&
		c.ReplicationTLSSecret == naming.ReplicationTLSSecret(p.cluster.Name)
}

func hashOf(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("hash desired spec: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// settledProvisioner is the provisioner as the pipeline runs it: its
// Observe, and every component after it, see CNPG's status as settled
// (provisioner_settle.go) rather than as it is this millisecond, and a restore
// that CNPG reports failed is Failed with RestoreFailed.
type settledProvisioner struct{ provisionerComponent }

func (s settledProvisioner) Observe(ctx context.Context, p *pass, err error) health {
	var recheck time.Duration
	view := cnpgView{}
	if p.provisioner.cnpg != nil {
		view, recheck = p.deps.settle.view(ctx, types.NamespacedName{Namespace: p.cluster.Namespace, Name: p.cluster.Name}, p.provisioner.cnpg)
		p.provisioner.cnpg = view.applyTo(p.provisioner.cnpg)
	}
	h := s.provisionerComponent.Observe(ctx, p, err)
	h.RequeueAfter = pipeline.Soonest(h.RequeueAfter, recheck)
	if h.Phase == pgv1.PhaseFailed && h.Reason == pgv1.ReasonCNPGFailed {
		if r := p.cluster.Spec.Restore; r != nil && !view.bootstrapped() {
			h.Reason = pgv1.ReasonRestoreFailed
			h.Message = fmt.Sprintf("restore of %q from ObjectStore %q failed: %s", r.Source, restoreObjectStore(p, r), h.Message)
		}
	}
	return h
}

func (provisionerComponent) Observe(ctx context.Context, p *pass, err error) health {
	if h, ok := conflictHealth(pgv1.ReasonClusterConflict, err); ok {
		return h
	}
	if errors.Is(err, errTopologyWithoutArchive) {
		return failed(pgv1.ReasonTopologyWithoutArchive, err.Error())
	}
	if apierrors.IsInvalid(err) || isAdmissionDenial(err) {
		return failed(pgv1.ReasonClusterSpecInvalid, err.Error())
	}
	if err != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonApplyFailed, err.Error(), 0)
	}
	if p.provisioner.loss != nil {
		return lostHealth(p)
	}
	cl := p.provisioner.cnpg
	if cl == nil {
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonClusterCreating, "CNPG Cluster not created yet", provisionRecheck)
	}
	p.contracts.CNPGCluster = cl
	st := p.status
	st.ProvisionerRef = &pgv1.ProvisionerReference{APIVersion: "postgresql.cnpg.io/v1", Kind: "Cluster", Name: cl.Name, UID: cl.UID}
	st.Instances, st.ReadyInstances = int32(cl.Status.Instances), int32(cl.Status.ReadyInstances)
	st.CurrentPrimary = cl.Status.CurrentPrimary
	observeTopology(p, cl)
	if p.provisioner.specApplied {
		// CNPG has no observedGeneration: its status is stale right after
		// a spec change, so look again shortly instead of trusting it.
		return waiting(pgv1.PhaseConfiguring, pgv1.ReasonSpecApplied, specAppliedMessage, configureRecheck)
	}
	if left := specAppliedHold(p, p.deps.clock.Now()); left > 0 {
		return waiting(pgv1.PhaseConfiguring, pgv1.ReasonSpecApplied, specAppliedMessage, left)
	}
	phase, known := mapPhase(cl.Status.Phase)
	msg := describePhase(cl) + topologyMessage(p)
	stuck := schedulingPart.of(p.obs)
	switch {
	case !known:
		return waiting(pgv1.PhasePending, pgv1.ReasonUnknownCNPGPhase, msg, provisionRecheck)
	case phase == pgv1.PhaseFailed:
		return failed(pgv1.ReasonCNPGFailed, msg)
	case phase != pgv1.PhaseReady && len(stuck) > 0:
		return unschedulableHealth(phase, msg, stuck)
	case phase != pgv1.PhaseReady:
		return waiting(phase, cnpgWaitReasons[phase], msg, eventRecheck)
	}
	if p.cluster.IsReplica() {
		// Its roles and passwords are the primary's, replayed: nothing
		// this site generated logs in (provisioner_topology.go).
		return ready(pgv1.ReasonReplicaHealthy, msg)
	}
	if pipeline.ConditionTrue(p.status.Conditions, pgv1.ConditionReady, p.cluster.Generation) &&
		pipeline.ConditionTrue(p.status.Conditions, pgv1.ConditionProvisionerReady, p.cluster.Generation) &&
		!checkSkipped(p) {
		return ready(pgv1.ReasonClusterHealthy, heldHealthyMessage(p, msg))
	}
	return checkParameters(ctx, p, msg)
}

const specAppliedMessage = "applied a change to the CNPG Cluster"

// checkSkipped: the last ProvisionerReady says Postgres was not checked,
// so a healthy cluster is not held healthy on it.
func checkSkipped(p *pass) bool {
	c := apimeta.FindStatusCondition(p.status.Conditions, pgv1.ConditionProvisionerReady)
	return c != nil && c.Reason == pgv1.ReasonPostgresNotChecked
}

// specAppliedHold is how much longer a pass must not trust CNPG's status
// after the pass that changed the CNPG Cluster (ProvisionerReady
// SpecApplied at this generation, since its lastTransitionTime): that
// change's own echo — the CNPG Cluster update our apply caused — wakes a
// pass within milliseconds, when CNPG still reports the old state healthy
// and Postgres has not yet loaded the new settings, and a Ready concluded
// then is never checked again (a Ready cluster's resync runs no SQL). An
// invalid pg_hba line was missed that way.
func specAppliedHold(p *pass, now time.Time) time.Duration {
	c := apimeta.FindStatusCondition(p.status.Conditions, pgv1.ConditionProvisionerReady)
	if c == nil || c.Reason != pgv1.ReasonSpecApplied || c.ObservedGeneration != p.cluster.Generation {
		return 0
	}
	return configureRecheck - now.Sub(c.LastTransitionTime.Time)
}

func describePhase(cl *cnpgv1.Cluster) string {
	m := fmt.Sprintf("CNPG: %q", cl.Status.Phase)
	if cl.Status.PhaseReason != "" {
		m += ": " + cl.Status.PhaseReason
	}
	m += catalogHint(cl)
	return fmt.Sprintf("%s (%d/%d instances ready)", m, cl.Status.ReadyInstances, cl.Status.Instances)
}

// Delete removes the CNPG Cluster, and its data with it.
func (provisionerComponent) Delete(ctx context.Context, t *teardown) error {
	if t.retain() {
		return nil
	}
	return deleteChild(ctx, t, "CNPG Cluster", t.obs.cnpg, t.deps.pg.CNPGV1().Clusters(t.pc.Namespace).Delete)
}

// Release keeps the CNPG Cluster, running, for a later PostgresCluster.
func (provisionerComponent) Release(ctx context.Context, t *teardown) error {
	return releaseChild(ctx, t, "CNPG Cluster", t.obs.cnpg, t.deps.pg.CNPGV1().Clusters(t.pc.Namespace).Patch)
}
