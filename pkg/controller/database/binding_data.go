package database

import (
	"net"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// bindingSource is what one role's Service Binding Secret is made of.
type bindingSource struct {
	// host is the read-write Service; poolerHost the read-write pooler's,
	// "" while the cluster does not pool (or for a certificate role:
	// PgBouncer logs in to Postgres with the role's password).
	host, poolerHost string
	database, user   string
	// password is the role's, nil for a certificate role (pg_hba refuses
	// its password over TLS).
	password []byte
	// ca is the server CA (nil until the cluster has its copy).
	ca []byte
	// cert and key are a certificate role's, nil until CloudNativePG
	// issued them.
	cert, key []byte
}

// jdbcSSLFactory is the pgjdbc socket factory that trusts the one CA
// given inline in sslfactoryarg: a JDBC URL can name a root certificate
// only by a path, and where the binding is mounted is the workload's
// choice, unknown here. Spring Cloud Bindings and Quarkus take jdbc-url
// as it is, so it must verify the server on its own.
const jdbcSSLFactory = "org.postgresql.ssl.SingleCertValidatingFactory"

// bindingData are the entries of a role's binding Secret
// (docs/guides/service-binding.md). Every URI says sslmode verify-full;
// libpq finds the CA through sslrootcert, the file ca.crt beside the
// others in the binding's directory (PGSSLROOTCERT or the readers of
// Spring and Quarkus, which prefix it with that directory).
func bindingData(b bindingSource) map[string][]byte {
	port := strconv.Itoa(postgres.Port)
	d := map[string]string{
		naming.BindingKeyType:     naming.BindingType,
		naming.BindingKeyProvider: naming.BindingProvider,
		naming.BindingKeyHost:     b.host,
		naming.BindingKeyPort:     port,
		naming.BindingKeyDatabase: b.database,
		naming.BindingKeyUsername: b.user,
		naming.BindingKeySSLMode:  naming.SSLMode,
		naming.BindingKeyURI:      postgresURI(b.host, port, b.database, b.user, b.password),
		naming.BindingKeyJDBCURL:  jdbcURL(b.host, port, b.database, b.ca),
	}
	if b.password != nil {
		d[naming.BindingKeyPassword] = string(b.password)
		if b.poolerHost != "" {
			d[naming.BindingKeyPoolerURI] = postgresURI(b.poolerHost, port, b.database, b.user, b.password)
		}
	}
	if len(b.ca) > 0 {
		d[naming.BindingKeySSLRootCert] = naming.CACertKey
		d[naming.CACertKey] = string(b.ca)
	}
	if len(b.cert) > 0 && len(b.key) > 0 {
		d[corev1.TLSCertKey], d[corev1.TLSPrivateKeyKey] = string(b.cert), string(b.key)
		d[naming.BindingKeySSLCert], d[naming.BindingKeySSLKey] = corev1.TLSCertKey, corev1.TLSPrivateKeyKey
	}
	out := make(map[string][]byte, len(d))
	for k, v := range d {
		out[k] = []byte(v)
	}
	return out
}

// postgresURI is a libpq connection URI (RFC 3986): user and password
// percent-encoded in the userinfo, no password for a certificate role.
func postgresURI(host, port, database, user string, password []byte) string {
	u := url.URL{Scheme: "postgresql", User: url.User(user), Host: net.JoinHostPort(host, port), Path: "/" + database,
		RawQuery: url.Values{naming.BindingKeySSLMode: {naming.SSLMode}}.Encode()}
	if password != nil {
		u.User = url.UserPassword(user, string(password))
	}
	return u.String()
}

// jdbcURL is pgjdbc's URL of the database, without credentials (Spring
// and Quarkus set username and password apart, and log URLs): verify-full,
// and, once the CA is known, the CA inline (jdbcSSLFactory).
func jdbcURL(host, port, database string, ca []byte) string {
	q := url.Values{naming.BindingKeySSLMode: {naming.SSLMode}}
	if len(ca) > 0 {
		q.Set("sslfactory", jdbcSSLFactory)
		q.Set("sslfactoryarg", string(ca))
	}
	return "jdbc:postgresql://" + net.JoinHostPort(host, port) + "/" + database + "?" + q.Encode()
}
