package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func sharedPass(other ...archiveUse) *pass {
	p := testPass()
	p.want = &desired{ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "s3://b/pg", Layout: pgv1.ArchiveLayoutShared, CredentialsSecretName: "creds"}}
	mine := ourStore("s3://b/pg")
	mine.CreationTimestamp = metav1.NewTime(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	p.obs = &observation{archives: other, objectStore: mine}
	return p
}

// Of two clusters on one folder (or one folder inside the other), the
// one already archiving keeps it, else the older store, else the name;
// other endpoints and disjoint folders never conflict.
func TestArchiveConflict(t *testing.T) {
	t.Parallel()
	old := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	other := func(folder string, archiving bool, since metav1.Time) archiveUse {
		return archiveUse{cluster: "a/shop", store: "a/shop-backup", folder: folder, archiving: archiving, since: since}
	}
	for _, tc := range []struct {
		name    string
		other   archiveUse
		refused bool
	}{
		{"same folder, the other archives", other("s3://b/pg/shop", true, old), true},
		{"same folder, the other only has a store", other("s3://b/pg/shop", false, old), true},
		{"same folder, our store is older", other("s3://b/pg/shop", false, metav1.Now()), false},
		{"folder inside ours", other("s3://b/pg/shop/x", true, old), true},
		{"our folder inside the other's", other("s3://b/pg", true, old), true},
		{"a sibling with a longer name", other("s3://b/pg/shop2", true, old), false},
		{"a namespaced sibling", other("s3://b/pg/a/shop", true, old), false},
		{"another endpoint", archiveUse{cluster: "a/shop", folder: "s3://b/pg/shop", endpoint: "http://minio", archiving: true, since: old}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := sharedPass(tc.other)
			got := archiveConflict(p)
			if (got != nil) != tc.refused {
				t.Fatalf("conflict = %+v, want refused %v", got, tc.refused)
			}
		})
	}
}

// Both sides agree: when our cluster archives and the other does not,
// ours keeps the folder, and the other (seen from its side) is refused.
func TestArchiveConflictIsDecidedOnceForBoth(t *testing.T) {
	t.Parallel()
	a := archiveUse{cluster: "a/shop", folder: "s3://b/pg/shop", archiving: true, since: metav1.Now()}
	b := archiveUse{cluster: "b/shop", folder: "s3://b/pg/shop", archiving: false, since: metav1.NewTime(time.Unix(0, 0))}
	if !holdsFirst(&a, &b) || holdsFirst(&b, &a) {
		t.Fatal("the archiving cluster does not hold the folder on both sides")
	}
	c := archiveUse{cluster: "c/shop", folder: "s3://b/pg/shop", since: a.since}
	d := archiveUse{cluster: "d/shop", folder: "s3://b/pg/shop", since: a.since}
	if holdsFirst(&c, &d) == holdsFirst(&d, &c) {
		t.Fatal("a tie is not broken the same way from both sides")
	}
}

// The refusal comes before the write: no ObjectStore is applied, the
// component is Failed ArchiveConflict (rechecked), and the message names
// the other cluster and its folder.
func TestObjectStoreRefusesSharedFolder(t *testing.T) {
	t.Parallel()
	p := sharedPass(archiveUse{cluster: "a/shop", store: "a/shop-backup", folder: "s3://b/pg/shop", archiving: true, since: metav1.Now()})
	p.deps = &deps{} // no clients: any write would panic
	err := (objectStoreComponent{}).Reconcile(t.Context(), p)
	var ac *archiveConflictError
	if !errors.As(err, &ac) {
		t.Fatalf("err = %v", err)
	}
	h := (objectStoreComponent{}).Observe(t.Context(), p, err)
	if h.Phase != pgv1.PhaseFailed || h.Reason != "ArchiveConflict" || h.RequeueAfter == 0 {
		t.Fatalf("health = %+v", h)
	}
	for _, want := range []string{`"s3://b/pg/shop"`, "PostgresCluster a/shop", "ObjectStore a/shop-backup"} {
		if !strings.Contains(h.Message, want) {
			t.Errorf("message %q lacks %q", h.Message, want)
		}
	}
}
