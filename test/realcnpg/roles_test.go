package realcnpg

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// One cluster (one instance, superuser access on so that the test can
// make foreign roles and databases by hand) for what real CNPG does with
// setpoint's credentials and with what setpoint did not create: password
// rotation, the read-only role's removal, an external Secret, ownership,
// then the cluster's deletion policies, which end the cluster, and last a
// foreign CNPG Cluster. Each step but the last two leaves the cluster
// Ready for the next; a step that fails says so and the next still runs.
func TestRolesOwnershipAndDeletionOnRealCNPG(t *testing.T) {
	ns := kit.Namespace(t)
	class := "su-" + ns
	smallClass(t, class, func(s *pgv1.ClusterSettings) { s.SuperuserAccess = ptr.To(true) })
	createCluster(t, ns, "shop", class)
	start := time.Now()
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	t.Logf("PostgresCluster Ready in %s", time.Since(start).Round(time.Second))
	for _, step := range []struct {
		name string
		run  func(t *testing.T, ns string)
	}{
		{"rotation", rotation},
		{"read-only role removed", readOnlyOff},
		{"external Secret", externalSecret},
		{"ownership", handMadeUntouched},
		{"cluster deletion policies", func(t *testing.T, ns string) { clusterDeletion(t, ns, class) }},
		{"foreign CNPG Cluster", func(t *testing.T, ns string) { foreignCluster(t, ns, class) }},
	} {
		start := time.Now()
		t.Run(step.name, func(t *testing.T) { step.run(t, ns) })
		t.Logf("%s: %s", step.name, time.Since(start).Round(time.Second))
	}
}
