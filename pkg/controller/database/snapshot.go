package database

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// observation is what one pass knows of the world, gathered once at its
// start from the caches and, for objects we do not cache (external
// Secrets), from the API server.
type observation struct {
	// class is the cluster's PostgresClusterClass, read only for a
	// database of another namespace (its tenants, when the cluster has
	// none: admission.go).
	class *pgv1.PostgresClusterClass
	// copies are the cluster-side copies of the password Secrets
	// (passwordCopy), by the tenant Secret's name, across namespaces
	// only; a missing one maps to nil.
	copies  map[string]*corev1.Secret
	cluster *pgv1.PostgresCluster
	// cnpgCluster is the CNPG Cluster the PostgresCluster controls (nil
	// for a namesake): its spec.managed.roles takes precedence over our
	// DatabaseRoles.
	cnpgCluster *cnpgv1.Cluster
	// instanceRole is CNPG's instance Role of the cluster, trimmed to the
	// Secrets it lets read (nil when not cached): whether a refused role
	// can be retried with success now (retryRole).
	instanceRole *rbacv1.Role
	// roles are the DatabaseRoles of every role of every known database,
	// by object name (cached in full), whoever controls them.
	roles map[string]*cnpgv1.DatabaseRole
	// roleNames are, per database of the spec or removed, every role
	// setpoint may have made for it (knownRoles).
	roleNames map[string][]string
	// secrets and configMaps are ours (label-selected cache), by name;
	// a ConfigMap as the cache keeps it, its data only as a digest.
	secrets    map[string]*corev1.Secret
	configMaps map[string]*informers.CachedConfigMap
	// external are the user's Secrets named in passwordConfig; a missing
	// one maps to nil.
	external map[string]*corev1.Secret
	// cnpg are the CNPG Databases of every known database, by object name.
	cnpg map[string]*cnpgv1.Database
	// serverCA is ca.crt of the cluster's <cluster>-server-ca, setpoint's
	// copy of the server CA (nil until the cluster controller made it):
	// what the binding Secrets give applications to verify the server.
	serverCA []byte
	// defaults are the cluster's databaseDefaults, merged with its
	// class's (database_defaults.go).
	defaults *pgv1.DatabaseDefaults
	// removed are databases no longer in the spec whose cleanup is not
	// finished: remembered in status, or found as CNPG Databases we own.
	removed []string
}

// observe builds the snapshot. Only API errors other than not-found fail
// the pass (and are retried with backoff).
func (c *Controller) observe(ctx context.Context, db *pgv1.PostgresDatabase) (*observation, error) {
	ns := db.Namespace
	o := &observation{
		secrets: map[string]*corev1.Secret{}, configMaps: map[string]*informers.CachedConfigMap{},
		external: map[string]*corev1.Secret{}, cnpg: map[string]*cnpgv1.Database{},
		roles: map[string]*cnpgv1.DatabaseRole{}, roleNames: map[string][]string{},
		copies: map[string]*corev1.Secret{},
	}
	// The cluster side: the cluster and what Postgres sees live in the
	// cluster's namespace (tenancy.go).
	cns := clusterNS(db)
	var err error
	if o.cluster, err = informers.IgnoreNotFound(c.clusters.PostgresClusters(cns).Get(db.Spec.ClusterRef.Name)); err != nil {
		return nil, err
	}
	// The CNPG Cluster has the cluster's name (the cluster controller's
	// provisioner writes it so); only the cluster's own counts.
	cc, err := informers.IgnoreNotFound(c.cnpgClusters.Clusters(cns).Get(db.Spec.ClusterRef.Name))
	if err != nil {
		return nil, err
	}
	if cc != nil && o.cluster != nil && ownership.IsControlledBy(cc, o.cluster.UID) {
		o.cnpgCluster = cc
	}
	if o.cluster != nil && crossNamespace(db) {
		if o.class, err = informers.IgnoreNotFound(c.classes.Get(o.cluster.Spec.Class)); err != nil {
			return nil, err
		}
	}
	if o.instanceRole, err = informers.IgnoreNotFound(c.instanceRoles.Roles(cns).Get(db.Spec.ClusterRef.Name)); err != nil {
		return nil, err
	}
	if _, ok := cnpgverdict.InstanceRoleCluster(o.instanceRole); !ok {
		o.instanceRole = nil // a namesake, not CNPG's
	}
	if o.serverCA, err = c.serverCA(cns, o.cluster); err != nil {
		return nil, err
	}
	if o.defaults, err = c.databaseDefaults(o.cluster); err != nil {
		return nil, err
	}
	if o.removed, err = c.removedDatabases(db); err != nil {
		return nil, err
	}
	owned, err := c.roleObjects.DatabaseRoles(cns).List(labels.SelectorFromSet(clusterSideLabels(db)))
	if err != nil {
		return nil, fmt.Errorf("list DatabaseRoles: %w", err)
	}
	all := slices.Concat(specNames(db), o.removed)
	for _, name := range all {
		n := namesOf(db, name)
		roles := knownRoles(db, name, owned)
		o.roleNames[name] = roles
		for _, s := range secretsOf(n, roles) {
			if o.secrets[s], err = informers.IgnoreNotFound(c.secrets.Secrets(ns).Get(s)); err != nil {
				return nil, err
			}
			if err := c.observeCopy(db, o, s); err != nil {
				return nil, err
			}
		}
		if o.configMaps[n.ConfigMap], err = informers.IgnoreNotFound(c.configMaps.Get(ns, n.ConfigMap)); err != nil {
			return nil, err
		}
		if o.cnpg[n.CNPG], err = informers.IgnoreNotFound(c.cnpgDatabases.Databases(cns).Get(n.CNPG)); err != nil {
			return nil, err
		}
		for _, role := range roles {
			obj := naming.RoleObject(db.Spec.ClusterRef.Name, role)
			if o.roles[obj], err = informers.IgnoreNotFound(c.roleObjects.DatabaseRoles(cns).Get(obj)); err != nil {
				return nil, err
			}
		}
	}
	for _, d := range db.Spec.Databases {
		for _, ref := range externalRefs(d) {
			if err := c.observeCopy(db, o, ref); err != nil {
				return nil, err
			}
		}
	}
	if db.DeletionTimestamp != nil {
		return o, nil
	}
	for _, d := range db.Spec.Databases {
		for _, ref := range externalRefs(d) {
			if _, seen := o.external[ref]; seen {
				continue
			}
			// External Secrets are not labelled ours, so not cached.
			s, err := informers.IgnoreNotFound(c.kube.CoreV1().Secrets(ns).Get(ctx, ref, metav1.GetOptions{}))
			if err != nil {
				return nil, fmt.Errorf("read external secret %s: %w", ref, err)
			}
			o.external[ref] = s
		}
	}
	return o, nil
}

// observeCopy reads the cluster-side copy of tenant Secret name, across
// namespaces (the label-selected Secret cache holds it: it is ours).
func (c *Controller) observeCopy(db *pgv1.PostgresDatabase, o *observation, name string) error {
	if !crossNamespace(db) {
		return nil
	}
	s, err := informers.IgnoreNotFound(c.secrets.Secrets(clusterNS(db)).Get(passwordCopy(db, name)))
	if err != nil {
		return err
	}
	o.copies[name] = s
	return nil
}

// serverCA is the cluster's server CA as its <cluster>-server-ca holds it,
// read from our Secret cache (the cluster controller labels it ours), and
// only from a Secret that cluster controls.
func (c *Controller) serverCA(namespace string, pc *pgv1.PostgresCluster) ([]byte, error) {
	if pc == nil {
		return nil, nil
	}
	s, err := informers.IgnoreNotFound(c.secrets.Secrets(namespace).Get(naming.ServerCASecret(pc.Name)))
	if err != nil || s == nil || !ownership.IsControlledBy(s, pc.UID) {
		return nil, err
	}
	return s.Data[naming.CACertKey], nil
}

// removedDatabases are the databases that left the spec but whose cleanup
// has not finished.
func (c *Controller) removedDatabases(db *pgv1.PostgresDatabase) ([]string, error) {
	inSpec := map[string]bool{}
	for _, n := range specNames(db) {
		inSpec[n] = true
	}
	var out []string
	add := func(name string) {
		if !inSpec[name] && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for _, d := range db.Status.Databases {
		add(d.Name)
	}
	owned, err := c.cnpgDatabaseIndex.ByIndex(informers.ByDatabaseLabel, db.Namespace+"/"+db.Name)
	if err != nil {
		return nil, fmt.Errorf("look up CNPG databases: %w", err)
	}
	for _, o := range owned {
		d, ok := o.(*cnpgv1.Database)
		if !ok || !ownsClusterSide(d, db) {
			continue
		}
		name, prefixed := strings.CutPrefix(d.Spec.Name, naming.TenantPrefix(db.Namespace, clusterNS(db)))
		if prefixed && d.Name == namesOf(db, name).CNPG {
			add(name)
		}
	}
	slices.Sort(out)
	return out, nil
}

func specNames(db *pgv1.PostgresDatabase) []string {
	out := make([]string, len(db.Spec.Databases))
	for i, d := range db.Spec.Databases {
		out[i] = d.Name
	}
	return out
}

func externalRefs(d pgv1.DatabaseSpec) []string {
	var out []string
	if pc := d.PasswordConfig; pc != nil {
		if pc.AdminSecretRef != nil {
			out = append(out, pc.AdminSecretRef.Name)
		}
		if pc.RWSecretRef != nil {
			out = append(out, pc.RWSecretRef.Name)
		}
		if pc.ROSecretRef != nil && d.ReadOnlyRole {
			out = append(out, pc.ROSecretRef.Name)
		}
	}
	return out
}
