package inspect

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	pgfake "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

const ns = "default"

func meta(name string, gen int64) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, Generation: gen}
}

func cond(t, status, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg}
}

// reader serves the objects through fake clientsets: core kinds from the
// Kubernetes fake, setpoint's and CNPG's from the generated one.
func reader(objs ...runtime.Object) Reader {
	var kube, pg []runtime.Object
	for _, o := range objs {
		switch o.(type) {
		case *corev1.Secret, *corev1.ConfigMap:
			kube = append(kube, o)
		default:
			pg = append(pg, o)
		}
	}
	return Reader{Kube: kubefake.NewClientset(kube...), PG: pgfake.NewClientset(pg...), Namespace: ns}
}

func cluster(phase pgv1.Phase, conds ...metav1.Condition) *pgv1.PostgresCluster {
	return &pgv1.PostgresCluster{ObjectMeta: meta("shop", 2), Spec: pgv1.PostgresClusterSpec{Class: "standard"},
		Status: pgv1.PostgresClusterStatus{Phase: phase, ObservedGeneration: 2, Conditions: conds}}
}

func database(phase pgv1.Phase, conds ...metav1.Condition) *pgv1.PostgresDatabase {
	return &pgv1.PostgresDatabase{ObjectMeta: meta("shop-app", 1),
		Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: "shop"},
			Databases: []pgv1.DatabaseSpec{{Name: "order_items", ReadOnlyRole: true}}},
		Status: pgv1.PostgresDatabaseStatus{Phase: phase, ObservedGeneration: 1, Conditions: conds}}
}

func role(name string, applied *bool, message string) *cnpgv1.DatabaseRole {
	return &cnpgv1.DatabaseRole{ObjectMeta: meta(name, 1),
		Status: cnpgv1.DatabaseRoleStatus{Applied: applied, ObservedGeneration: 1, Message: message}}
}

func ptr[T any](v T) *T { return &v }
