package cnpgsim

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/client-go/tools/cache"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// How Cluster and Secret events reach DatabaseRoles, and what a Cluster's
// deletion does to them.

// releaseDatabaseRoles is what CNPG's operator does to a deleted Cluster's
// DatabaseRoles: mark them (applied false, msgClusterDeleted,
// observedGeneration 0) and remove their finalizers, so that deleting one
// later never waits for a server that is gone.
func (s *Simulator) releaseDatabaseRoles(ctx context.Context, cluster cache.ObjectName, all bool) error {
	roles, err := s.databaseRoles.DatabaseRoles(cluster.Namespace).List(everything)
	if err != nil {
		return fmt.Errorf("list databaseroles: %w", err)
	}
	for _, role := range roles {
		held := slices.Contains(role.Finalizers, databaseRoleFinalizer)
		if role.Spec.Cluster.Name != cluster.Name || (!all && !held) {
			continue
		}
		role, err := s.writeDatabaseRoleStatus(ctx, role, roleClusterGone())
		if err != nil {
			return err
		}
		if role != nil && held {
			if err := s.setDatabaseRoleFinalizers(ctx, role, slices.DeleteFunc(slices.Clone(role.Finalizers),
				func(f string) bool { return f == databaseRoleFinalizer })); err != nil {
				return err
			}
		}
	}
	return nil
}

// clusterRoleEvents routes Cluster events to the Cluster's DatabaseRoles
// when they matter to them: a spec change (CNPG's operator and instance
// manager watch Cluster generations: managed.roles may have taken a role
// or let it go), the server starting or stopping (CNPG's primary would
// find out at its 30 s retry), the Cluster's creation or deletion. Not on
// every status write: those would re-read an unlabelled password Secret
// far more often than CNPG does.
func (s *Simulator) clusterRoleEvents() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: s.enqueueClusterDatabaseRoles,
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*cnpgv1.Cluster)
			n, ok2 := newObj.(*cnpgv1.Cluster)
			if ok1 && ok2 && o.Generation == n.Generation && (o.Status.ReadyInstances == 0) == (n.Status.ReadyInstances == 0) {
				return
			}
			s.enqueueClusterDatabaseRoles(newObj)
		},
		DeleteFunc: s.enqueueClusterDatabaseRoles,
	}
}

func (s *Simulator) enqueueClusterDatabaseRoles(obj any) {
	c, ok := unwrapTombstone(obj).(*cnpgv1.Cluster)
	if !ok {
		return
	}
	s.enqueueDatabaseRoles(c.Namespace, func(r *cnpgv1.DatabaseRole) bool { return r.Spec.Cluster.Name == c.Name })
}

// enqueueSecretDatabaseRoles is the operator's Secret watch: a labelled
// password Secret's change reaches the DatabaseRoles that name it.
func (s *Simulator) enqueueSecretDatabaseRoles(namespace, secret string) {
	s.enqueueDatabaseRoles(namespace, func(r *cnpgv1.DatabaseRole) bool {
		return r.Spec.PasswordSecret != nil && r.Spec.PasswordSecret.Name == secret
	})
}

func (s *Simulator) enqueueDatabaseRoles(namespace string, match func(*cnpgv1.DatabaseRole) bool) {
	roles, err := s.databaseRoles.DatabaseRoles(namespace).List(everything)
	if err != nil {
		return
	}
	for _, r := range roles {
		if match(r) {
			s.roleLoop.add(cache.ObjectName{Namespace: r.Namespace, Name: r.Name})
		}
	}
}
