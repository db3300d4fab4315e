package database

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// A PostgresDatabase's objects live on two sides
// (docs/adr/0016-shared-clusters-across-namespaces.md): what the app
// reads (its Secrets, the ConfigMap) in its own namespace, owned by
// ownerReference; what Postgres sees (the DatabaseRoles, the CNPG
// Database, the copies of the password Secrets CNPG reads) in the
// cluster's. In one namespace the two sides are one, and everything is
// as it always was; across namespaces the cluster side is owned by
// labels (ownership.TenantLabels), proven before every write.

// clusterNS is the namespace of db's cluster, and of its cluster side.
func clusterNS(db *pgv1.PostgresDatabase) string {
	return db.Spec.ClusterRef.NamespaceOr(db.Namespace)
}

// crossNamespace: db's cluster is in another namespace.
func crossNamespace(db *pgv1.PostgresDatabase) bool { return clusterNS(db) != db.Namespace }

// namesOf are the names of database name of db: prefixed with db's
// namespace on a cluster of another one (naming.TenantDatabase).
func namesOf(db *pgv1.PostgresDatabase, name string) names {
	return naming.TenantDatabase(db.Namespace, clusterNS(db), db.Name, name)
}

// ownsClusterSide: obj, a DatabaseRole, CNPG Database or Secret copy in
// the cluster's namespace, is db's: controlled by it in one namespace,
// labelled with its namespace, name and uid across namespaces.
func ownsClusterSide(obj metav1.Object, db *pgv1.PostgresDatabase) bool {
	if !crossNamespace(db) {
		return ownership.IsControlledBy(obj, db.UID)
	}
	return ownership.OwnedByTenant(obj, db.Namespace, db.Name, db.UID)
}

// clusterSideLabels are the labels of db's cluster-side objects.
func clusterSideLabels(db *pgv1.PostgresDatabase) map[string]string {
	if !crossNamespace(db) {
		return ownership.ManagedLabels(ownership.DatabaseLabel, db.Name)
	}
	return ownership.TenantLabels(db.Namespace, db.Name, db.UID)
}

// clusterSideRefs are the owner references of db's cluster-side objects:
// none across namespaces, where the garbage collector would ignore them.
func clusterSideRefs(db *pgv1.PostgresDatabase) []metav1.OwnerReference {
	if crossNamespace(db) {
		return nil
	}
	return []metav1.OwnerReference{ownership.OwnerRef(db, gvk)}
}

// passwordCopy is the Secret CNPG reads the password of tenant Secret
// secret from: the Secret itself in one namespace, its copy in the
// cluster's namespace across namespaces ("" stays "").
func passwordCopy(db *pgv1.PostgresDatabase, secret string) string {
	if secret == "" || !crossNamespace(db) {
		return secret
	}
	return naming.ClusterSide(db.Namespace, secret)
}

// checkClusterSide returns nil when db may write obj, a cluster-side
// object (absent, or db's), and the conflict naming its holder otherwise.
// In one namespace it is the owner's Check, which also lets a Retain
// hand-over adopt; across namespaces a Retain deletes the cluster-side
// objects (the Postgres role and database keep setpoint's marker, which
// a later PostgresDatabase of the same name claims), so there is nothing
// to adopt there.
func (p *pass) checkClusterSide(kind string, obj metav1.Object) *ownership.ConflictError {
	if !crossNamespace(p.db) {
		return p.owner().Check(kind, obj)
	}
	if obj == nil || reflect.ValueOf(obj).IsNil() || ownsClusterSide(obj, p.db) {
		return nil
	}
	return p.owner().Conflict(kind, obj)
}
