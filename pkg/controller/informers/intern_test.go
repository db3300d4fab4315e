package informers

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	v1alpha1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// childMeta is object metadata as setpoint's children carry it; every call
// builds fresh strings, as decoding does.
func childMeta(name, db string) metav1.ObjectMeta {
	ctrl := true
	return metav1.ObjectMeta{
		Name: name, Namespace: fresh("team-a"), UID: types.UID(fresh("0b8e3c52-5b0f-4c43-9d3f-" + name)),
		ResourceVersion: "1234",
		Labels: map[string]string{
			fresh(ownership.ManagedByLabel): fresh(ownership.ManagedByValue), fresh(ownership.ClusterLabel): fresh("main"), fresh(ownership.DatabaseLabel): fresh(db),
		},
		Annotations: map[string]string{fresh("cnpg.io/reload"): fresh("true")},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: fresh("postgres.setpoint.dev/v1alpha1"), Kind: fresh("PostgresDatabase"),
			Name: fresh(db), UID: "uid-" + types.UID(db), Controller: &ctrl,
		}},
		Finalizers: []string{fresh("postgres.setpoint.dev/finalizer")},
	}
}

// fresh returns a copy of s with bytes of its own.
func fresh(s string) string { return strings.Clone(s) }

func same(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func cachedObjects(db string) []any {
	cond := func() []metav1.Condition {
		return []metav1.Condition{{Type: fresh("Ready"), Status: metav1.ConditionStatus(fresh("True")), Reason: fresh("Ready"), Message: fresh("all databases ready")}}
	}
	return []any{
		&corev1.Secret{ObjectMeta: childMeta(db+"-app", db), Type: corev1.SecretType(fresh("kubernetes.io/basic-auth")),
			Data: map[string][]byte{fresh("username"): []byte(db), fresh("password"): []byte("s3cret-" + db)}},
		&corev1.ConfigMap{ObjectMeta: childMeta(db+"-conn", db), Data: map[string]string{fresh("host"): fresh("main-rw.team-a.svc"), fresh("port"): fresh("5432")}},
		&v1alpha1.PostgresDatabase{ObjectMeta: childMeta(db, db), Status: v1alpha1.PostgresDatabaseStatus{Conditions: cond()}},
		&v1alpha1.PostgresCluster{ObjectMeta: childMeta("main", db), Status: v1alpha1.PostgresClusterStatus{Conditions: cond()}},
		&cnpgv1.Cluster{ObjectMeta: childMeta("main", db), Status: cnpgv1.ClusterStatus{Conditions: cond(), Phase: "Cluster in healthy state"}},
		&cnpgv1.Database{ObjectMeta: childMeta(db+"-cnpg", db), Spec: cnpgv1.DatabaseSpec{
			Cluster: cnpgv1.LocalObjectReference{Name: fresh("main")}, Name: db, Owner: db + "_owner",
			Ensure: cnpgv1.EnsureOption(fresh("present")), DatabaseReclaimPolicy: fresh("retain"),
		}},
	}
}

// deepCopy copies the objects cachedObjects builds.
func deepCopy(o any) any {
	switch o := o.(type) {
	case *corev1.Secret:
		return o.DeepCopy()
	case *corev1.ConfigMap:
		return o.DeepCopy()
	case *v1alpha1.PostgresDatabase:
		return o.DeepCopy()
	case *v1alpha1.PostgresCluster:
		return o.DeepCopy()
	case *cnpgv1.Cluster:
		return o.DeepCopy()
	case *cnpgv1.Database:
		return o.DeepCopy()
	}
	panic(fmt.Sprintf("%T", o))
}

// Readers see every field as decoded: interning changes where a string's
// bytes live, never its value (Secret data, labels, conditions, specs).
func TestTrimForCacheKeepsEveryValueReadersUse(t *testing.T) {
	for _, o := range cachedObjects("orders") {
		want := deepCopy(o)
		got, err := (&interner{}).trimForCache(o)
		if err != nil {
			t.Fatal(err)
		}
		if cm, ok := got.(*corev1.ConfigMap); ok {
			// Its data is kept as a digest, which CachedConfigMap reads.
			wantCM := want.(*corev1.ConfigMap)
			if !CachedConfigMapOf(cm).DataEqual(wantCM.Data) || !isDigest(cm.Data) {
				t.Errorf("ConfigMap data %v does not read as %v", cm.Data, wantCM.Data)
			}
			cm.Data, wantCM.Data = nil, nil
		}
		if !equality.Semantic.DeepEqual(got, want) {
			t.Errorf("%T changed by the transform:\ngot  %+v\nwant %+v", o, got, want)
		}
	}
}

// Two objects decoded apart share one copy of what they repeat, and keep
// their own names and UIDs.
func TestTrimForCacheSharesRepeatedStrings(t *testing.T) {
	in := &interner{}
	a := cachedObjects("orders")
	b := cachedObjects("orders")
	for i := range a {
		if _, err := in.trimForCache(a[i]); err != nil {
			t.Fatal(err)
		}
		if _, err := in.trimForCache(b[i]); err != nil {
			t.Fatal(err)
		}
	}
	sa, sb := a[0].(*corev1.Secret), b[0].(*corev1.Secret)
	if !same(sa.Namespace, sb.Namespace) || !same(sa.Labels[ownership.DatabaseLabel], sb.Labels[ownership.DatabaseLabel]) ||
		!same(sa.OwnerReferences[0].Kind, sb.OwnerReferences[0].Kind) || !same(sa.Finalizers[0], sb.Finalizers[0]) ||
		!same(string(sa.Type), string(sb.Type)) || !same(sa.Annotations["cnpg.io/reload"], sb.Annotations["cnpg.io/reload"]) {
		t.Error("Secret metadata not shared")
	}
	for k := range sa.Labels {
		for k2 := range sb.Labels {
			if k == k2 && !same(k, k2) {
				t.Errorf("label key %q not shared", k)
			}
		}
	}
	if same(sa.Name, sb.Name) {
		t.Error("an object's own name was interned")
	}
	pa, pb := a[2].(*v1alpha1.PostgresDatabase), b[2].(*v1alpha1.PostgresDatabase)
	if !same(pa.Status.Conditions[0].Reason, pb.Status.Conditions[0].Reason) ||
		!same(string(pa.Status.Conditions[0].Status), string(pb.Status.Conditions[0].Status)) {
		t.Error("condition strings not shared")
	}
	pa.TypeMeta = metav1.TypeMeta{APIVersion: fresh("postgres.setpoint.dev/v1alpha1"), Kind: fresh("PostgresDatabase")}
	pb.TypeMeta = metav1.TypeMeta{APIVersion: fresh("postgres.setpoint.dev/v1alpha1"), Kind: fresh("PostgresDatabase")}
	for _, o := range []any{pa, pb} {
		if _, err := in.trimForCache(o); err != nil {
			t.Fatal(err)
		}
	}
	if !same(pa.APIVersion, pb.APIVersion) || !same(pa.Kind, pb.Kind) || pa.Kind != "PostgresDatabase" {
		t.Error("kind and API version not shared")
	}
	da, db := a[5].(*cnpgv1.Database), b[5].(*cnpgv1.Database)
	if !same(da.Spec.Cluster.Name, db.Spec.Cluster.Name) || !same(da.Spec.DatabaseReclaimPolicy, db.Spec.DatabaseReclaimPolicy) {
		t.Error("CNPG Database spec strings not shared")
	}
}

func TestInternerIsBounded(t *testing.T) {
	in := &interner{}
	for i := range maxInterned + 10 {
		in.s(fmt.Sprintf("value-%d", i))
	}
	if n := len(in.m); n > maxInterned || n == 0 {
		t.Errorf("table holds %d strings, bound %d", n, maxInterned)
	}
	long := strings.Repeat("x", maxInternedLen+1)
	if got := in.s(long); !same(got, long) || in.m[long] != "" {
		t.Error("a long string was interned")
	}
}

// Lists decoded with spare room keep their elements in an array of their
// own length.
func TestTrimForCacheClipsLists(t *testing.T) {
	pd := cachedObjects("orders")[2].(*v1alpha1.PostgresDatabase)
	pd.OwnerReferences = append(make([]metav1.OwnerReference, 0, 4), pd.OwnerReferences...)
	pd.Finalizers = append(make([]string, 0, 4), pd.Finalizers...)
	pd.Status.Conditions = append(make([]metav1.Condition, 0, 4), pd.Status.Conditions...)
	pd.Status.Databases = append(make([]v1alpha1.DatabaseStatus, 0, 4), v1alpha1.DatabaseStatus{
		Name: "orders", Ready: true, Roles: append(make([]v1alpha1.RoleStatus, 0, 4), v1alpha1.RoleStatus{Name: "orders_owner"}),
	})
	pd.Spec.Databases = append(make([]v1alpha1.DatabaseSpec, 0, 4), v1alpha1.DatabaseSpec{Name: "orders"})
	want := pd.DeepCopy()
	if _, err := (&interner{}).trimForCache(pd); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(pd, want) {
		t.Fatalf("values changed:\ngot  %+v\nwant %+v", pd, want)
	}
	for name, c := range map[string]int{
		"ownerReferences": cap(pd.OwnerReferences), "finalizers": cap(pd.Finalizers),
		"conditions": cap(pd.Status.Conditions), "status.databases": cap(pd.Status.Databases),
		"status.databases[0].roles": cap(pd.Status.Databases[0].Roles), "spec.databases": cap(pd.Spec.Databases),
	} {
		if c != 1 {
			t.Errorf("%s: capacity %d, want 1", name, c)
		}
	}
	if got := clip([]string{}); got == nil || len(got) != 0 {
		t.Errorf("an empty list became %#v; nil and empty differ to a semantic comparison", got)
	}
}

// client-go may pass an object through the transform twice (its contract:
// transforms are idempotent). A second pass changes nothing a reader sees:
// a ConfigMap's digest is not digested again.
func TestTrimForCacheIsIdempotent(t *testing.T) {
	in := &interner{}
	for _, o := range cachedObjects("orders") {
		once, err := in.trimForCache(o)
		if err != nil {
			t.Fatal(err)
		}
		want := deepCopy(once)
		twice, err := in.trimForCache(once)
		if err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(twice, want) {
			t.Errorf("%T changed by a second transform:\ngot  %+v\nwant %+v", o, twice, want)
		}
	}
	cm := &corev1.ConfigMap{Data: map[string]string{"host": "main-rw"}}
	for range 2 {
		if _, err := in.trimForCache(cm); err != nil {
			t.Fatal(err)
		}
	}
	if !CachedConfigMapOf(cm).DataEqual(map[string]string{"host": "main-rw"}) {
		t.Error("a ConfigMap transformed twice no longer reads as its data")
	}
}
