package cnpgverdict

import (
	"slices"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

func role(name, cluster string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{ClusterLabel: cluster}}, Rules: rules}
}

func secretRule(verbs []string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: verbs, ResourceNames: names}
}

// The Secrets a Role lets read are the names of its rules with get on
// core Secrets, whichever rule names them; a rule of another resource,
// group or verb names none.
func TestReadableSecrets(t *testing.T) {
	t.Parallel()
	r := role("shop", "shop",
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}, ResourceNames: []string{"cm"}},
		secretRule([]string{"get", "watch"}, "shop-ca", "app-orders-rw"),
		secretRule([]string{"*"}, "app-orders-ro", "shop-ca"),
		secretRule([]string{"watch"}, "watched-only"),
		rbacv1.PolicyRule{APIGroups: []string{"postgresql.cnpg.io"}, Resources: []string{"secrets"}, Verbs: []string{"get"}, ResourceNames: []string{"other-group"}},
	)
	if got, want := ReadableSecrets(r), []string{"app-orders-ro", "app-orders-rw", "shop-ca"}; !slices.Equal(got, want) {
		t.Errorf("ReadableSecrets = %v, want %v", got, want)
	}
	if !MayRead(r, "app-orders-rw") || MayRead(r, "watched-only") || MayRead(nil, "app-orders-rw") || MayRead(r, "") {
		t.Error("MayRead disagrees with ReadableSecrets")
	}
	if got := NewlyReadable(role("shop", "shop", secretRule([]string{"get"}, "shop-ca")), r); !slices.Equal(got, []string{"app-orders-ro", "app-orders-rw"}) {
		t.Errorf("NewlyReadable = %v", got)
	}
	if got := NewlyReadable(nil, r); len(got) != 3 {
		t.Errorf("NewlyReadable of a new Role = %v, want all three", got)
	}
}

// The instance Role is the one named after the cluster its label names.
func TestInstanceRoleCluster(t *testing.T) {
	t.Parallel()
	if c, ok := InstanceRoleCluster(role("shop", "shop")); !ok || c != "shop" {
		t.Errorf("instance Role: %q, %v", c, ok)
	}
	for _, r := range []*rbacv1.Role{role("shop-pooler", "shop"), role("shop", ""), nil} {
		if _, ok := InstanceRoleCluster(r); ok {
			t.Errorf("%+v taken for an instance Role", r)
		}
	}
}

// A refused role is retried at once when the Secret is granted since the
// last retry, whatever the pace; after a retry made with it granted, at
// the pace again.
func TestRetryDueGranted(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 4, 14, 0, 0, 0, time.UTC)
	recent := now.Add(-RetryPace / 4)
	for _, tc := range []struct {
		name    string
		role    annotations
		granted bool
		due     bool
		after   time.Duration
	}{
		{"retried without the grant, now granted: at once", RetryMark(recent), true, true, 0},
		{"retried without the grant, still not granted: the pace", RetryMark(recent), false, false, RetryPace * 3 / 4},
		{"retried with the grant: the pace", GrantedRetryMark(failedRole(forbidden, nil), recent, true), true, false, RetryPace * 3 / 4},
		{"never retried: at once", nil, true, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			due, after := RetryDueGranted(failedRole(forbidden, tc.role), now, tc.granted)
			if due != tc.due || after != tc.after {
				t.Errorf("RetryDueGranted = %v, %s; want %v, %s", due, after, tc.due, tc.after)
			}
		})
	}
	applied := failedRole("", nil)
	if due, after := RetryDueGranted(applied, now, true); due || after != 0 {
		t.Error("a role not refused for its Secret is retried when granted")
	}
}

// A retry on the grant within the pace keeps the paced retry's time; one
// out of the pace, or a first one, is a new start.
func TestGrantedRetryMarkKeepsThePace(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 4, 14, 0, 0, 0, time.UTC)
	paced := failedRole(forbidden, RetryMark(now.Add(-RetryPace/4)))
	if m := GrantedRetryMark(paced, now, true); m[RetryAnnotation] != paced.Annotations[RetryAnnotation] || m[RetryGrantedAnnotation] != "true" {
		t.Errorf("within the pace: %v; want the paced time kept and the grant marked", m)
	}
	for _, r := range []*cnpgv1.DatabaseRole{failedRole(forbidden, nil), failedRole(forbidden, RetryMark(now.Add(-RetryPace)))} {
		if m := GrantedRetryMark(r, now, true); m[RetryAnnotation] != RetryMark(now)[RetryAnnotation] {
			t.Errorf("after %v: %v; want a retry at now", r.Annotations, m)
		}
	}
	if m := GrantedRetryMark(paced, now, false); len(m) != 1 || m[RetryAnnotation] != RetryMark(now)[RetryAnnotation] {
		t.Errorf("not granted: %v; want a paced retry at now", m)
	}
}

type annotations = map[string]string
