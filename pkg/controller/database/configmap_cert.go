package database

import (
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// certData turns the connection data d of a database that logs in by
// certificate into what its application needs: per role the Secret CNPG
// issued its certificate into (<DatabaseRole>-client-cert, keys tls.crt
// and tls.key, signed by the cluster's client CA, renewed by CNPG before
// it expires). setpoint names CNPG's Secret rather than copying it: a copy
// would be a second place the key lives, and would lag CNPG's renewals.
// The password Secrets are not named: pg_hba refuses those passwords. Nor
// are the poolers: PgBouncer logs in to Postgres with the role's password,
// which these roles cannot use.
func certData(d map[string]string, cluster string, n names, e *pgv1.DatabaseStatus, extras []extraLogin) {
	for _, k := range []string{naming.KeyAdminSecret, naming.KeyRWSecret, naming.KeyROSecret, naming.KeyPoolerHost, naming.KeyPoolerROHost} {
		delete(d, k)
	}
	d[naming.KeyAuthentication] = string(pgv1.AuthenticationCertificate)
	d[naming.KeyAdminCertSecret] = naming.ClientCertSecret(naming.RoleObject(cluster, n.AdminRole))
	d[naming.KeyRWCertSecret] = naming.ClientCertSecret(naming.RoleObject(cluster, n.RWRole))
	if e.ROSecretRef != nil { // set only while readOnlyRole is
		d[naming.KeyROCertSecret] = naming.ClientCertSecret(naming.RoleObject(cluster, n.RORole))
	}
	for _, x := range extras {
		_, secret, cert := naming.RoleKeys(x.name)
		delete(d, secret)
		d[cert] = naming.ClientCertSecret(naming.RoleObject(cluster, x.role))
	}
}
