package informers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

func TestIgnoreUnread(t *testing.T) {
	in := &interner{m: map[string]string{}}
	cached := func(r *cnpgv1.DatabaseRole) *cnpgv1.DatabaseRole {
		obj, err := in.trimForCache(r.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*cnpgv1.DatabaseRole)
	}
	base := &cnpgv1.DatabaseRole{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop.app-admin", ResourceVersion: "1", Generation: 1},
		Spec:       cnpgv1.DatabaseRoleSpec{Name: "app_admin"},
	}
	edit := func(f func(*cnpgv1.DatabaseRole)) *cnpgv1.DatabaseRole {
		r := base.DeepCopy()
		r.ResourceVersion = "2"
		f(r)
		return r
	}
	cases := []struct {
		name string
		old  *cnpgv1.DatabaseRole
		new  *cnpgv1.DatabaseRole
		want int
	}{
		{"CNPG's password condition alone", base, edit(func(r *cnpgv1.DatabaseRole) {
			r.Status.Conditions = []metav1.Condition{{Type: cnpgv1.DatabaseRoleConditionPasswordSecretChange, Status: metav1.ConditionTrue, Message: "42"}}
		}), 0},
		{"managedFields alone", base, edit(func(r *cnpgv1.DatabaseRole) {
			r.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "someone"}}
		}), 0},
		{"applied", base, edit(func(r *cnpgv1.DatabaseRole) {
			r.Status.Applied, r.Status.ObservedGeneration = ptr.To(true), 1
		}), 1},
		{"CNPG's finalizer", base, edit(func(r *cnpgv1.DatabaseRole) { r.Finalizers = []string{"cnpg.io/deleteRole"} }), 1},
		{"spec", base, edit(func(r *cnpgv1.DatabaseRole) { r.Spec.Login = true; r.Generation = 2 }), 1},
		{"a resync (same resourceVersion) goes to the handler", base, base.DeepCopy(), 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := 0
			h := IgnoreUnread(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, _ any) { got++ }})
			h.OnUpdate(cached(tc.old), cached(tc.new))
			if got != tc.want {
				t.Errorf("updates passed on = %d, want %d", got, tc.want)
			}
		})
	}
	t.Run("adds and deletes pass", func(t *testing.T) {
		adds, deletes := 0, 0
		h := IgnoreUnread(cache.ResourceEventHandlerFuncs{AddFunc: func(any) { adds++ }, DeleteFunc: func(any) { deletes++ }})
		h.OnAdd(cached(base), false)
		h.OnDelete(cached(base))
		if adds != 1 || deletes != 1 {
			t.Errorf("adds %d, deletes %d; want 1 and 1", adds, deletes)
		}
	})
}
