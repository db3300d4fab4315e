package cluster

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	barmanac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/barmancloud/v1"
	barmanlisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/barmancloud/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// objectStoreAPI is the barman-cloud plugin's ObjectStore, which takes
// backups to object storage: without it, clusters asking for them wait.
var objectStoreAPI = informers.OptionalAPI{
	Project: "barman-cloud plugin", Group: "barmancloud.cnpg.io", Version: "v1", Resource: "objectstores", Kind: "ObjectStore",
	Without: "clusters asking for backups to object storage wait with " + pgv1.ReasonBackupTargetUnavailable,
}

// objectStoreComponent keeps the barman-cloud ObjectStore <cluster>-backup
// while backups to object storage are configured, and removes it after.
type objectStoreComponent struct{}

// API declares the optional CRD the component needs.
func (objectStoreComponent) API() informers.OptionalAPI { return objectStoreAPI }

func (objectStoreComponent) Name() string            { return "objectStore" }
func (objectStoreComponent) Condition() string       { return pgv1.ConditionObjectStoreReady }
func (objectStoreComponent) Requires() []contractKey { return nil }
func (objectStoreComponent) Provides() []contractKey { return nil }

func (objectStoreComponent) Reconcile(ctx context.Context, p *pass) error {
	cur := p.obs.objectStore
	if p.want.ObjectStore == nil {
		if cur == nil || !ownership.IsControlledBy(cur, p.cluster.UID) {
			return nil
		}
		err := p.deps.pg.BarmanCloudV1().ObjectStores(cur.Namespace).Delete(ctx, cur.Name, ownership.DeleteOf(cur))
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete object store: %w", err)
		}
		return nil
	}
	if other := archiveConflict(p); other != nil {
		return &archiveConflictError{other: *other}
	}
	if p.deps.objectStoresMissing {
		return nil // nothing to write to; Observe says so
	}
	client := p.deps.pg.BarmanCloudV1().ObjectStores(p.cluster.Namespace)
	cur, err := claimCached(ctx, p, "ObjectStore", cur, client, naming.ObjectStore(p.cluster.Name))
	if err != nil {
		return err
	}
	if cur != nil && objectStoreMatches(cur, p.want.ObjectStore, archiveRoot(p)) && ownership.IsControlledBy(cur, p.cluster.UID) {
		return nil
	}
	if _, err := client.Apply(ctx, desiredObjectStore(p), applyOpts); err != nil {
		return fmt.Errorf("apply object store: %w", err)
	}
	return nil
}

func (objectStoreComponent) Observe(_ context.Context, p *pass, err error) health {
	if h, ok := conflictHealth(pgv1.ReasonObjectStoreConflict, err); ok {
		return h
	}
	if ac := (*archiveConflictError)(nil); errors.As(err, &ac) {
		// Rechecked every minute: the other cluster may go away.
		return failedWait(pgv1.ReasonArchiveConflict, ac.Error())
	}
	if err == nil && p.want.ObjectStore != nil && p.deps.objectStoresMissing {
		// Not an error to retry: the operator restarts its controllers, and
		// so revisits every cluster, when the CRD appears.
		return waiting(pgv1.PhasePending, pgv1.ReasonBackupTargetUnavailable, objectStoreAPI.Missing(), 0)
	}
	if err != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonObjectStoreError, err.Error(), 0)
	}
	if p.want.ObjectStore == nil {
		p.status.BackupStatus = nil
		return ready(pgv1.ReasonNotConfigured, "no object store configured")
	}
	if p.status.BackupStatus == nil {
		p.status.BackupStatus = &pgv1.BackupStatus{}
	}
	p.status.BackupStatus.ObjectStore = naming.ObjectStore(p.cluster.Name)
	p.status.BackupStatus.ServerName = archiveServerName(p)
	p.status.BackupStatus.ArchivePath = archivePath(p)
	return ready(pgv1.ReasonObjectStoreApplied, fmt.Sprintf("ObjectStore %q", naming.ObjectStore(p.cluster.Name)))
}

func desiredObjectStore(p *pass) *barmanac.ObjectStoreApplyConfiguration {
	os := p.want.ObjectStore
	cfg := barmanac.BarmanObjectStoreConfiguration().WithDestinationPath(archiveRoot(p))
	accessOf(os).applyTo(cfg)
	if os.EndpointURL != "" {
		cfg.WithEndpointURL(os.EndpointURL)
	}
	spec := barmanac.ObjectStoreSpec().WithConfiguration(cfg)
	if os.RetentionPolicy != "" {
		spec.WithRetentionPolicy(os.RetentionPolicy)
	}
	return barmanac.ObjectStore(naming.ObjectStore(p.cluster.Name), p.cluster.Namespace).
		WithLabels(ownership.ManagedLabels(ownership.ClusterLabel, p.cluster.Name)).
		WithOwnerReferences(ownership.OwnerRefApply(p.cluster, gvk)).
		WithSpec(spec)
}

// objectStoreMatches compares only the fields we set; root is the
// destinationPath the cluster's folder needs (archiveRoot).
func objectStoreMatches(cur *barmanv1.ObjectStore, want *pgv1.ObjectStoreSpec, root string) bool {
	c := cur.Spec.Configuration
	return c.DestinationPath == root &&
		c.EndpointURL == want.EndpointURL &&
		cur.Spec.RetentionPolicy == want.RetentionPolicy &&
		accessOf(want).heldBy(c)
}

// Delete removes the ObjectStore with the cluster's data.
func (objectStoreComponent) Delete(ctx context.Context, t *teardown) error {
	if t.retain() {
		return nil
	}
	return deleteChild(ctx, t, "ObjectStore", t.obs.objectStore, t.deps.pg.BarmanCloudV1().ObjectStores(t.pc.Namespace).Delete)
}

// Release keeps the ObjectStore the retained CNPG Cluster archives to.
func (objectStoreComponent) Release(ctx context.Context, t *teardown) error {
	return releaseChild(ctx, t, "ObjectStore", t.obs.objectStore, t.deps.pg.BarmanCloudV1().ObjectStores(t.pc.Namespace).Patch)
}

// objectStoreCache is the ObjectStore informer and lister; without the
// CRD no informer, and a lister of nothing. (The controller holds them:
// besides the component, the archive rules read every ObjectStore.)
func objectStoreCache(inf *informers.Informers) (cache.SharedIndexInformer, barmanlisters.ObjectStoreLister) {
	if !inf.Served(objectStoreAPI) {
		return nil, barmanlisters.NewObjectStoreLister(informers.EmptyIndexer())
	}
	os := inf.Setpoint.BarmanCloud().V1().ObjectStores()
	return os.Informer(), os.Lister()
}
