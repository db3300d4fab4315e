package cnpgverdict

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// CNPG's message when its instance Role does not name the Secret yet,
// word for word from the real-CNPG tier.
const forbidden = `secrets "app-orders-ro" is forbidden: User "system:serviceaccount:ns:shop" cannot get resource "secrets" in API group "" in the namespace "ns"`

func failedRole(msg string, annotations map[string]string) *cnpgv1.DatabaseRole {
	return &cnpgv1.DatabaseRole{
		ObjectMeta: metav1.ObjectMeta{Name: "shop.orders-ro", Generation: 1, Annotations: annotations},
		Spec:       cnpgv1.DatabaseRoleSpec{Name: "orders_ro", PasswordSecret: &cnpgv1.LocalObjectReference{Name: "app-orders-ro"}},
		Status:     cnpgv1.DatabaseRoleStatus{Applied: ptr.To(false), Message: msg},
	}
}

func TestRetryOnlyTheSecretRace(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 4, 14, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		role  *cnpgv1.DatabaseRole
		due   bool
		after time.Duration
	}{
		{"the race, never retried: now", failedRole(forbidden, nil), true, 0},
		{"the race, retried half a pace ago: later", failedRole(forbidden, RetryMark(now.Add(-RetryPace/2))), false, RetryPace / 2},
		{"the race, retried a pace ago: now", failedRole(forbidden, RetryMark(now.Add(-RetryPace))), true, 0},
		{"another Secret's race: not ours to retry", failedRole(`secrets "other" is forbidden: …`, nil), false, 0},
		{"another failure: CNPG retries on its own", failedRole("role is already managed by the CNPG cluster", nil), false, 0},
		{"applied", func() *cnpgv1.DatabaseRole {
			r := failedRole(forbidden, nil)
			r.Status.Applied = ptr.To(true)
			return r
		}(), false, 0},
		{"not tried yet", func() *cnpgv1.DatabaseRole { r := failedRole("", nil); r.Status.Applied = nil; return r }(), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			due, after := RetryDue(tc.role, now)
			if due != tc.due || after != tc.after {
				t.Errorf("RetryDue = %v, %s; want %v, %s", due, after, tc.due, tc.after)
			}
		})
	}
}
