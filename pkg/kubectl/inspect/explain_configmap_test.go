package inspect

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// refusedForConfigMap is a PostgresDatabase (with readOnlyRole) whose
// connection ConfigMap's name is taken by a ConfigMap setpoint did not
// create, with the conditions the database controller writes for it
// (TestForeignConfigMapIsRefused's pass, read back), and that ConfigMap.
func refusedForConfigMap() (*pgv1.PostgresDatabase, *corev1.ConfigMap) {
	msg := `ConfigMap "shop-app-order-items-config" exists and was not created by setpoint for this object (not managed by setpoint); ` +
		"setpoint leaves it untouched: delete or rename it, or use another name"
	db := database(pgv1.PhaseFailed,
		cond("SecretsReady", "True", "SecretsReady", "credentials of 1 database(s) in place"),
		cond("ClusterReady", "True", "ClusterReady", `PostgresCluster "shop" is ready`),
		cond("ConfigMapsReady", "False", "ConfigMapConflict", msg),
		cond("RolesReady", "False", "Blocked", "waiting for ConfigMapsReady"),
		cond("DatabasesReady", "False", "Blocked", "waiting for ConfigMapsReady"),
		cond("PrivilegesReady", "False", "Blocked", "waiting for ConfigMapsReady"),
		cond("Ready", "False", "ConfigMapConflict", "ConfigMapsReady: "+msg))
	db.UID = "db-uid"
	foreign := &corev1.ConfigMap{ObjectMeta: meta("shop-app-order-items-config", 0), Data: map[string]string{"theirs": "yes"}}
	return db, foreign
}

// A database refused because its ConfigMap's name is taken is explained
// by that ConfigMap: the condition, the ConfigMap named as not setpoint's,
// and ConfigMapConflict's advice — never the read-only role, which has
// nothing to do with it.
func TestExplainForeignConfigMapBlamesTheConfigMap(t *testing.T) {
	db, foreign := refusedForConfigMap()
	e, err := reader(db, foreign).ExplainDatabase(t.Context(), "shop-app")
	if err != nil {
		t.Fatal(err)
	}
	if e.Condition == nil || e.Condition.Type != pgv1.ConditionConfigMapsReady || e.Condition.Reason != pgv1.ReasonConfigMapConflict {
		t.Fatalf("blocked at %+v, want ConfigMapsReady ConfigMapConflict", e.Condition)
	}
	want := Cause{Object: "ConfigMap shop-app-order-items-config", Status: "exists and is not setpoint's (no controller reference to PostgresDatabase shop-app)"}
	if len(e.Causes) != 1 || e.Causes[0] != want {
		t.Fatalf("causes %+v, want %+v", e.Causes, want)
	}
	if e.Advice != AdviceFor(pgv1.ConditionConfigMapsReady, pgv1.ReasonConfigMapConflict) {
		t.Fatalf("advice %q, want ConfigMapConflict's", e.Advice)
	}
	var out strings.Builder
	if err := WriteExplanation(&out, e); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "readOnlyRole") || !strings.Contains(out.String(), "delete that ConfigMap or rename it") {
		t.Fatalf("explanation:\n%s", out.String())
	}
	// The ConfigMap setpoint wrote for this database is no cause.
	ours := foreign.DeepCopy()
	ours.OwnerReferences = []metav1.OwnerReference{{Kind: "PostgresDatabase", Name: "shop-app", UID: db.UID, Controller: ptr(true)}}
	if e, err = reader(db, ours).ExplainDatabase(t.Context(), "shop-app"); err != nil || len(e.Causes) != 0 {
		t.Fatalf("setpoint's own ConfigMap: causes %+v, %v", e.Causes, err)
	}
}

// conn --anyway on the same database reads a ConfigMap that is not
// setpoint's: it says so, rather than that the role does not exist.
func TestConnectionAnywayRefusesAForeignConfigMap(t *testing.T) {
	db, foreign := refusedForConfigMap()
	_, err := reader(db, foreign).Connection(t.Context(), "shop-app", ConnectionOptions{Role: "rw", Anyway: true})
	if err == nil || strings.Contains(err.Error(), "readOnlyRole") || !strings.Contains(err.Error(), "ConfigMap shop-app-order-items-config exists and is not setpoint's") {
		t.Fatalf("conn --anyway with a foreign ConfigMap: %v", err)
	}
}

// A database refused because a generated Secret's name is taken names
// that Secret as not setpoint's; a Secret of the user's, which
// passwordConfig names, is theirs by design and no cause while it exists.
func TestExplainForeignSecretBlamesTheSecret(t *testing.T) {
	msg := `Secret "shop-app-order-items-rw" exists and was not created by setpoint for this object (not managed by setpoint); ` +
		"setpoint leaves it untouched: delete or rename it, or use another name"
	db := database(pgv1.PhaseFailed,
		cond("SecretsReady", "False", "SecretConflict", msg),
		cond("Ready", "False", "SecretConflict", "SecretsReady: "+msg))
	db.UID = "db-uid"
	db.Spec.Databases[0].PasswordConfig = &pgv1.DatabasePasswordConfig{ROSecretRef: &pgv1.LocalObjectReference{Name: "vault-ro"}}
	ownedBy := func(name string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: meta(name, 0)}
		s.OwnerReferences = []metav1.OwnerReference{{Kind: "PostgresDatabase", Name: db.Name, UID: db.UID, Controller: ptr(true)}}
		return s
	}
	foreign := &corev1.Secret{ObjectMeta: meta("shop-app-order-items-rw", 0)}
	users := &corev1.Secret{ObjectMeta: meta("vault-ro", 0)}
	e, err := reader(db, ownedBy("shop-app-order-items-admin"), foreign, users).ExplainDatabase(t.Context(), "shop-app")
	if err != nil {
		t.Fatal(err)
	}
	want := Cause{Object: "Secret shop-app-order-items-rw", Status: "exists and is not setpoint's (no controller reference to PostgresDatabase shop-app)"}
	if e.Condition == nil || e.Condition.Reason != pgv1.ReasonSecretConflict || len(e.Causes) != 1 || e.Causes[0] != want {
		t.Fatalf("explanation %+v causes %+v, want SecretConflict caused by %+v", e.Condition, e.Causes, want)
	}
}
