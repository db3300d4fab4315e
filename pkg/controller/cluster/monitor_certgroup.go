package cluster

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/roleprivilege"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// The cluster's certificate group (naming.CertAuthGroup): a NOLOGIN
// role, no password, no privilege, that the cluster's fixed pg_hba lines
// (hbaLines) let in by client certificate only. The roles of a database
// with authentication: certificate join it through their DatabaseRoles.
// Every cluster has it, whether a database uses it or not: the pg_hba
// lines and the group are the same for every cluster, so the Cluster does
// not grow with its databases and nothing here waits for them. Reclaim
// retain: a retained certificate database keeps logging in after its
// PostgresCluster goes, and a later one adopts the group by its marker.

// certGroupApply is the server-side apply of the group's DatabaseRole,
// only our fields.
func certGroupApply(p *pass) *cnpgac.DatabaseRoleApplyConfiguration {
	name := p.cluster.Name
	spec := roleprivilege.Unprivileged(cnpgac.DatabaseRoleSpec()).
		WithCluster(cnpgac.LocalObjectReference().WithName(name)).
		WithName(naming.CertAuthGroup).WithLogin(false).
		WithComment(ownership.ClusterMarker(p.cluster.Namespace, name)).
		WithDatabaseRoleReclaimPolicy(cnpgv1.DatabaseRoleReclaimRetain)
	return cnpgac.DatabaseRole(naming.CertAuthGroupObject(name), p.cluster.Namespace).
		WithLabels(ownership.ManagedLabels(ownership.ClusterLabel, name)).
		WithOwnerReferences(ownership.OwnerRefApply(p.cluster, gvk)).
		WithSpec(spec)
}

// certGroupCurrent compares the fields we own, with CNPG's defaults.
func certGroupCurrent(cur *cnpgv1.DatabaseRole, p *pass) bool {
	s, name := cur.Spec, p.cluster.Name
	return ownership.IsControlledBy(cur, p.cluster.UID) && ownership.HasLabels(cur.Labels, ownership.ManagedLabels(ownership.ClusterLabel, name)) &&
		s.Cluster.Name == name && s.Name == naming.CertAuthGroup && !s.Login &&
		s.Comment == ownership.ClusterMarker(p.cluster.Namespace, name) && len(roleprivilege.Drift(cur, nil)) == 0 &&
		cmp.Or(s.DatabaseRoleReclaimPolicy, cnpgv1.DatabaseRoleReclaimRetain) == cnpgv1.DatabaseRoleReclaimRetain
}

// ensureCertGroup keeps the group's DatabaseRole. Whether CNPG applied it
// is not waited for here: a certificate database's roles cannot be
// applied before it is, and their DatabaseRoles say so.
func ensureCertGroup(ctx context.Context, p *pass) error {
	cur, object := p.obs.certGroup, naming.CertAuthGroupObject(p.cluster.Name)
	if cur != nil && !ownership.IsControlledBy(cur, p.cluster.UID) {
		// Never adopted: a DatabaseRole we did not create.
		return &refusal{pgv1.ReasonCertAuthGroupConflict, fmt.Sprintf(
			"DatabaseRole %q was not created by setpoint for this PostgresCluster; setpoint leaves it untouched: delete it", object)}
	}
	if cur != nil && (cur.DeletionTimestamp != nil || certGroupCurrent(cur, p)) {
		return nil
	}
	if cur == nil {
		if err := claimCertGroup(ctx, p); err != nil {
			return err
		}
	}
	applied, err := p.deps.pg.CNPGV1().DatabaseRoles(p.cluster.Namespace).Apply(ctx, certGroupApply(p), applyOpts)
	if err != nil {
		return fmt.Errorf("apply DatabaseRole %s: %w", object, err)
	}
	if err := revertRolePrivileges(ctx, p, cur, applied, nil); err != nil {
		return err
	}
	if cur == nil {
		klog.FromContext(ctx).V(2).Info("Created certificate group DatabaseRole", "databaseRole", klog.KObj(applied))
	}
	return nil
}

// claimCertGroup proves, before the first write, that the group is nobody
// else's, as claimMonitorRole does for the monitor.
func claimCertGroup(ctx context.Context, p *pass) error {
	role := naming.CertAuthGroup
	err := claimClusterRole(ctx, p, clusterRoleClaim{
		role: role, object: naming.CertAuthGroupObject(p.cluster.Name), rivals: p.obs.certGroupRivals,
		conflict: pgv1.ReasonCertAuthGroupConflict, exists: pgv1.ReasonCertAuthGroupExists,
	})
	if err != nil {
		return fmt.Errorf("check role %s: %w", role, err)
	}
	return nil
}

// observeCertGroup reads the group's DatabaseRole and any other
// DatabaseRole of that role on this cluster.
func (c *Controller) observeCertGroup(pc *pgv1.PostgresCluster, o *observation) error {
	ns, name := pc.Namespace, pc.Name
	object := naming.CertAuthGroupObject(name)
	var err error
	if o.certGroup, err = informers.IgnoreNotFound(c.databaseRoles.DatabaseRoles(ns).Get(object)); err != nil {
		return err
	}
	o.certGroupRivals, err = rivals(c.roleIndex, ns, name, naming.CertAuthGroup, object)
	return err
}

// rivals are the cached DatabaseRoles other than ours (object) that manage
// role on the cluster.
func rivals(index cache.Indexer, ns, cluster, role, object string) ([]*cnpgv1.DatabaseRole, error) {
	all, err := informers.RolesOnCluster(index, ns, cluster, role)
	return slices.DeleteFunc(all, func(r *cnpgv1.DatabaseRole) bool { return r.Name == object }), err
}
