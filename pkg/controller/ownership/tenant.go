package ownership

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A PostgresDatabase on a cluster of another namespace has objects in the
// cluster's namespace (its DatabaseRoles, CNPG Database, and the copies
// of its password Secrets CloudNativePG reads). An ownerReference cannot
// cross namespaces (the garbage collector ignores it), so these carry
// labels instead: the managed marker, DatabaseLabel (the name), and the
// namespace and uid of the PostgresDatabase
// (docs/adr/0016-shared-clusters-across-namespaces.md). The uid makes a
// PostgresDatabase deleted and created again under the same name a
// stranger to what the old one left.
const (
	// DatabaseNamespaceLabel names the namespace of the PostgresDatabase
	// a cluster-side object belongs to.
	DatabaseNamespaceLabel = "postgres.setpoint.dev/database-namespace"
	// DatabaseUIDLabel is the uid of that PostgresDatabase.
	DatabaseUIDLabel = "postgres.setpoint.dev/database-uid"
)

// TenantLabels are the labels of a cluster-side object of the
// PostgresDatabase namespace/name with uid.
func TenantLabels(namespace, name string, uid types.UID) map[string]string {
	l := ManagedLabels(DatabaseLabel, name)
	l[DatabaseNamespaceLabel] = namespace
	l[DatabaseUIDLabel] = string(uid)
	return l
}

// OwnedByTenant reports whether obj is a cluster-side object of the
// PostgresDatabase namespace/name with uid: every label of TenantLabels,
// and no controller reference (which no object of ours there has).
func OwnedByTenant(obj metav1.Object, namespace, name string, uid types.UID) bool {
	l := obj.GetLabels()
	return metav1.GetControllerOfNoCopy(obj) == nil && l[ManagedByLabel] == ManagedByValue &&
		l[DatabaseLabel] == name && l[DatabaseNamespaceLabel] == namespace && l[DatabaseUIDLabel] == string(uid)
}

// tenantHolder is who a cluster-side object's labels say holds it, for a
// conflict's message; ok is false when they name no PostgresDatabase.
func tenantHolder(obj metav1.Object) (string, bool) {
	l := obj.GetLabels()
	ns, name := l[DatabaseNamespaceLabel], l[DatabaseLabel]
	if l[ManagedByLabel] != ManagedByValue || ns == "" || name == "" {
		return "", false
	}
	return fmt.Sprintf("managed by setpoint for PostgresDatabase %s/%s, UID %s", ns, name, l[DatabaseUIDLabel]), true
}
