package cluster

import (
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// superuserAccess decides the CNPG Cluster's enableSuperuserAccess from
// the merged superuserAccess setting (want), whether the cluster names an
// external superuser Secret, and the CNPG Cluster that runs it (nil when
// there is none yet).
//
//   - Set, it is what it says (false with an external Secret is refused
//     earlier, by the CRD or validate).
//   - Unset, naming an external superuser Secret asks for access: nobody
//     names a superuser Secret to have it ignored.
//   - Unset otherwise, a CNPG Cluster of this PostgresCluster (controlled
//     by it, or retained for it) keeps what it has: clusters created by an
//     earlier setpoint, which always turned access on, keep it until the
//     user sets false, and a cluster turned off stays off. A new cluster
//     is off, as in CloudNativePG.
func superuserAccess(want *bool, external bool, pc *pgv1.PostgresCluster, running *cnpgv1.Cluster) bool {
	switch {
	case want != nil:
		return *want
	case external:
		return true
	case running != nil && runsFor(pc, running):
		return ptr.Deref(running.Spec.EnableSuperuserAccess, false)
	}
	return false
}
