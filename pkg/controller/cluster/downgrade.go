package cluster

import (
	"fmt"
	"strings"
	"time"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// resolveAgainst resolves the cluster and refuses a result that would take
// the CNPG Cluster it runs on backwards. running is the CNPG Cluster as
// observed, nil before it exists; now is the pass's time.
func resolveAgainst(pc *pgv1.PostgresCluster, class *pgv1.PostgresClusterClass, running *cnpgv1.Cluster, now time.Time) (*desired, error) {
	d, err := resolve(pc, class)
	if err != nil {
		return d, err
	}
	d.StorageSize = sizeInEffect(pc, d, running)
	d.Superuser = superuserAccess(d.Settings.SuperuserAccess, d.ExternalSuperSec != "", pc, running)
	if err := refuseFutureTarget(pc, running, now); err != nil {
		return d, err // before anything is written (restore_target.go)
	}
	return d, refuseDowngrade(pc, d, running)
}

// refuseDowngrade compares the merged values with what the CNPG Cluster
// runs. The CRD's transition rules keep a cluster's own postgresVersion
// and storage.size from going down, but an edit of the class changes the
// merged values of every cluster that inherits them, and Postgres cannot
// go down a major version nor a volume shrink: such a result is refused
// before anything is applied, until the class or the cluster changes.
func refuseDowngrade(pc *pgv1.PostgresCluster, d *desired, running *cnpgv1.Cluster) error {
	if running == nil || !runsFor(pc, running) {
		return nil
	}
	if have, ok := runningMajor(running); ok {
		if want, ok := wantedMajor(d); ok && want < have {
			return &specError{pgv1.ReasonDowngradeRefused, fmt.Sprintf(
				"postgresVersion %d (%s, from class %q and the cluster) is below major version %d, which the CNPG Cluster runs (%s): Postgres cannot go down a major version; set postgresVersion %d or higher, or restore the class",
				want, wantedImage(d), pc.Spec.Class, have, describeImage(running), have)}
		}
	}
	if have, ok := runningSize(pc, running); ok && d.StorageSize.Cmp(have) < 0 {
		return &specError{pgv1.ReasonStorageShrinkRefused, fmt.Sprintf(
			"storage.size %s (from class %q and the cluster) is below the %s of the CNPG Cluster's volumes, which cannot shrink; set storage.size %s or more, or restore the class",
			d.StorageSize.String(), pc.Spec.Class, have.String(), have.String())}
	}
	return nil
}

// runsFor reports whether the CNPG Cluster holds this PostgresCluster's
// data: ours, or left by a Retain deletion of a PostgresCluster of the
// same name. Another tool's Cluster is not compared: setpoint will not
// write it at all.
func runsFor(pc *pgv1.PostgresCluster, cl *cnpgv1.Cluster) bool {
	if ownership.IsControlledBy(cl, pc.UID) {
		return true
	}
	l := cl.GetLabels()
	return len(cl.GetOwnerReferences()) == 0 && l[ownership.ManagedByLabel] == ownership.ManagedByValue && l[ownership.ClusterLabel] == pc.Name
}

// imageMajor reads the Postgres major version from an image tag
// ("ghcr.io/cloudnative-pg/postgresql:16.4-bookworm" is 16); false when
// the tag does not start with one (a digest, "latest").
func imageMajor(image string) (int, bool) {
	image, _, _ = strings.Cut(image, "@")
	colon := strings.LastIndex(image, ":")
	if colon < 0 || colon < strings.LastIndex(image, "/") {
		return 0, false
	}
	tag, n, i := image[colon+1:], 0, 0
	for ; i < len(tag) && i < 4 && tag[i] >= '0' && tag[i] <= '9'; i++ {
		n = n*10 + int(tag[i]-'0')
	}
	return n, i > 0
}
