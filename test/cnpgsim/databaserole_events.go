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

// enqueueClusterDatabaseRoles looks again at a Cluster's DatabaseRoles when
// the Cluster changes: its managed.roles (CNPG watches the spec) or its
// server coming up (CNPG would find it at its 30 s retry).
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
