package cluster

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/pki"
)

// observation is what one pass knows of the world, gathered once at its
// start from the caches (and, for objects we do not cache, the API).
type observation struct {
	class       *pgv1.PostgresClusterClass
	secret      *corev1.Secret
	external    *corev1.Secret
	cnpg        *cnpgv1.Cluster
	objectStore *barmanv1.ObjectStore
	// archives are the other clusters' archive folders (archiveConflict),
	// gathered only for a cluster whose class or spec has an object store.
	archives []archiveUse
	// configMap is the connection ConfigMap as the cache keeps it: its
	// data only as a digest.
	configMap *informers.CachedConfigMap
	// monitorSecret and monitorRole are the monitor role's Secret and
	// DatabaseRole; monitorRivals the other DatabaseRoles that manage
	// that role on this cluster.
	monitorSecret *corev1.Secret
	monitorRole   *cnpgv1.DatabaseRole
	monitorRivals []*cnpgv1.DatabaseRole
	// certGroup and certGroupRivals: the same for the certificate group
	// (monitor_certgroup.go).
	certGroup       *cnpgv1.DatabaseRole
	certGroupRivals []*cnpgv1.DatabaseRole
	ca              []byte
	// sample is the collector's last sample of the primary, nil when
	// there is none: read here, never queried during the pass.
	sample *collector.Sample
	// parts are the components' own children, each read by the
	// component's reader (watch.go) and read back through its part.
	parts map[string]any
}

// observe builds the snapshot. Only API errors other than not-found fail
// the pass (and are retried with backoff).
func (c *Controller) observe(ctx context.Context, pc *pgv1.PostgresCluster) (*observation, error) {
	ns, name := pc.Namespace, pc.Name
	o := &observation{}
	if c.samples != nil {
		if s, ok := c.samples.Sample(types.NamespacedName{Namespace: ns, Name: name}); ok {
			o.sample = &s
		}
	}
	var err error
	if o.class, err = informers.IgnoreNotFound(c.classes.Get(pc.Spec.Class)); err != nil {
		return nil, err
	}
	if ref := pc.Spec.PasswordConfig; ref != nil && ref.SuperuserExternalSecretRef != nil {
		// External Secrets are not ours, so not cached: read directly.
		if o.external, err = informers.IgnoreNotFound(c.deps.kube.CoreV1().Secrets(ns).Get(ctx, ref.SuperuserExternalSecretRef.Name, metav1.GetOptions{})); err != nil {
			return nil, fmt.Errorf("read external superuser secret: %w", err)
		}
	}
	if err := c.observeChildren(pc, o); err != nil {
		return nil, err
	}
	if hasObjectStore(pc, o.class) {
		if o.archives, err = c.otherArchiveUses(pc); err != nil {
			return nil, err
		}
	}
	if o.configMap, err = informers.IgnoreNotFound(c.configMaps.Get(ns, name+configMapSuffix)); err != nil {
		return nil, err
	}
	if err := c.observeMonitor(pc, o); err != nil {
		return nil, err
	}
	if err := c.observeCertGroup(pc, o); err != nil {
		return nil, err
	}
	if o.cnpg != nil {
		if o.ca, err = c.serverCA(ctx, o.cnpg); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// observeMonitor reads the monitor role's objects: its Secret, its
// DatabaseRole, and any other DatabaseRole of that role on this cluster
// (ByRoleOnCluster), which claimMonitorRole refuses to compete with.
func (c *Controller) observeMonitor(pc *pgv1.PostgresCluster, o *observation) error {
	ns, name := pc.Namespace, pc.Name
	var err error
	if o.monitorSecret, err = informers.IgnoreNotFound(c.secrets.Secrets(ns).Get(naming.MonitorSecret(name))); err != nil {
		return err
	}
	object := naming.MonitorRoleObject(name)
	if o.monitorRole, err = informers.IgnoreNotFound(c.databaseRoles.DatabaseRoles(ns).Get(object)); err != nil {
		return err
	}
	o.monitorRivals, err = rivals(c.roleIndex, ns, name, naming.MonitorRole, object)
	return err
}

// observeChildren reads, from the caches, the children that outlive a
// pass: those a deletion policy deletes or releases (teardown.go). The
// components' readers read their own; the rest, which several components
// read, are read here.
func (c *Controller) observeChildren(pc *pgv1.PostgresCluster, o *observation) error {
	ns, name := pc.Namespace, pc.Name
	var err error
	if o.secret, err = informers.IgnoreNotFound(c.secrets.Secrets(ns).Get(naming.SuperuserSecret(name))); err != nil {
		return err
	}
	if o.cnpg, err = informers.IgnoreNotFound(c.cnpgClusters.Clusters(ns).Get(name)); err != nil {
		return err
	}
	if o.objectStore, err = informers.IgnoreNotFound(c.objectStores.ObjectStores(ns).Get(naming.ObjectStore(name))); err != nil {
		return err
	}
	for _, read := range c.readers {
		if err := read(pc, o); err != nil {
			return err
		}
	}
	return nil
}

// cnpgTimeString is how CNPG writes status.certificates.expirations (Go's
// time.Time.String).
const cnpgTimeString = "2006-01-02 15:04:05.999999999 -0700 MST"

// serverCA is ca.crt of CNPG's server CA. The CA cache reads it once; when
// CNPG reports another expiration for it than the cached certificate's,
// CNPG renewed it, and it is read again (the server CA copy follows).
func (c *Controller) serverCA(ctx context.Context, cl *cnpgv1.Cluster) ([]byte, error) {
	name := naming.CASecret(cl.Name)
	ca, err := c.cas.Get(ctx, cl.Namespace, name)
	if err != nil || len(ca) == 0 || cl.Status.Certificates == nil {
		return ca, err
	}
	reported, err := time.Parse(cnpgTimeString, cl.Status.Certificates.Expirations[name])
	if err != nil {
		return ca, nil //nolint:nilerr // CNPG reports no (readable) expiration: nothing to compare
	}
	certs, err := pki.ParseBundle(ca)
	if err != nil || !certs[0].NotAfter.Equal(reported) {
		c.cas.Forget(cl.Namespace, name)
		return c.cas.Get(ctx, cl.Namespace, name)
	}
	return ca, nil
}
