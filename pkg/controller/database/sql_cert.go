package database

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// asAdminByCert is the target of database n.DB as its <db>_admin when the
// database logs in by certificate: pg_hba refuses the role's password over
// TLS, so setpoint presents the certificate CNPG issued the role, as the
// application does. The Secret is CNPG's, not labelled ours, so not in our
// cache: it is read from the API server when the grants run (not on
// converged passes). Its key stays in memory, in the Target.
func (p *pass) asAdminByCert(ctx context.Context, n names) (postgres.Target, error) {
	object := naming.RoleObject(p.obs.cluster.Name, n.AdminRole)
	role := p.obs.roles[object]
	if role == nil || !ownsClusterSide(role, p.db) {
		return postgres.Target{}, fmt.Errorf("DatabaseRole %q of role %s is not this PostgresDatabase's", object, n.AdminRole)
	}
	name := naming.ClientCertSecret(object)
	s, err := informers.IgnoreNotFound(p.deps.kube.CoreV1().Secrets(clusterNS(p.db)).Get(ctx, name, metav1.GetOptions{}))
	if err != nil {
		return postgres.Target{}, fmt.Errorf("read Secret %s: %w", name, err)
	}
	// Ownership before use: a key is presented only from the Secret CNPG
	// issued for our DatabaseRole, never from a same-named one of anyone's.
	if s == nil || !ownership.IsControlledBy(s, role.UID) {
		return postgres.Target{}, fmt.Errorf("client certificate Secret %q of role %s not issued by CloudNativePG yet", name, n.AdminRole)
	}
	t, err := p.targetAs(ctx, n.DB, n.AdminRole, "")
	if err != nil {
		return postgres.Target{}, err
	}
	t.ClientCert, t.ClientKey = s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]
	return t, nil
}
