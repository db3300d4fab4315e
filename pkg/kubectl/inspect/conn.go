package inspect

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// Connection is what a client needs to reach one database as one role,
// read from what setpoint publishes: the database's ConfigMap (host,
// port, database, user and Secret names, CA, sslmode) and the role's
// Secret. Password stays empty unless asked for. A database that logs in
// by certificate (authentication: certificate) has CertSecret instead of
// Secret, and no password opens it.
type Connection struct {
	Host     string `json:"host"`
	Port     string `json:"port"`
	Database string `json:"database"`
	User     string `json:"user"`
	// Secret holds the role's password (key "password").
	Secret string `json:"secret,omitempty"`
	// CertSecret holds the role's client certificate and key (tls.crt,
	// tls.key), which CloudNativePG issued.
	CertSecret string `json:"certSecret,omitempty"`
	// CASecret / CASecretKey hold the root certificate to verify the
	// server with (sslmode verify-full).
	CASecret    string `json:"caSecret"`
	CASecretKey string `json:"caSecretKey"`
	SSLMode     string `json:"sslmode"`
	Password    string `json:"-"`
}

// roleKey are the ConfigMap keys of a role's user, password Secret and
// certificate Secret.
type roleKey struct{ user, secret, cert string }

// keysOf are the ConfigMap keys of role (admin, rw, ro or a login role of
// spec.roles) of database d, or why d has no connection for it.
func keysOf(pgdb string, d pgv1.DatabaseSpec, role string) (roleKey, error) {
	var names []string
	for _, r := range RolesOf(pgdb, d) {
		if r.Secret == "" {
			continue // a group: no login, no connection
		}
		if r.Kind == role {
			user, secret, cert := naming.RoleKeys(role)
			return roleKey{user, secret, cert}, nil
		}
		names = append(names, r.Kind)
	}
	hint := ""
	if role == "ro" {
		hint = " (readOnlyRole: true adds ro)"
	}
	return roleKey{}, fmt.Errorf("role %q: database %s has no such login role%s; it has %v", role, d.Name, hint, names)
}

// ConnectionOptions choose the role and the service.
type ConnectionOptions struct {
	Database string // the Postgres database; "" when the object has one
	Role     string // admin, rw, ro or a login role of spec.roles
	Pooler   bool   // the PgBouncer pooler's host instead of the -rw Service
	// WithPassword reads the password from the role's Secret (a role that
	// logs in by certificate has none).
	WithPassword bool
	// Anyway reads the connection of a database that is not Ready, whose
	// role may not exist or not be setpoint's (ErrNotUsable otherwise).
	Anyway bool
}

// ErrNotUsable is Connection's error for a PostgresDatabase that is not
// Ready: its ConfigMap may be published while its roles are refused (a
// role of that name exists and is not setpoint's), and a connection
// string to a role setpoint does not hold is a string nothing opens.
var ErrNotUsable = errors.New("the PostgresDatabase is not usable")

// usable says why db cannot be connected to, nil when it can: it is Ready.
func usable(db *pgv1.PostgresDatabase) error {
	if db.Status.Phase == pgv1.PhaseReady {
		return nil
	}
	why := "no status yet"
	if c := apimeta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionReady); c != nil {
		why = c.Reason + ": " + c.Message
	}
	phase := string(db.Status.Phase)
	if phase == "" {
		phase = "no phase"
	}
	return fmt.Errorf("%w: %s/%s is %s (%s); `kubectl setpoint explain %s` says what to do, --anyway prints the connection regardless",
		ErrNotUsable, db.Namespace, db.Name, phase, why, db.Name)
}

// Connection reads the connection info of one database of PostgresDatabase
// name. It reads the ConfigMap setpoint writes, so it shows what
// applications see, not a second derivation of it.
func (r Reader) Connection(ctx context.Context, name string, o ConnectionOptions) (*Connection, error) {
	db, err := r.PG.PostgresV1alpha1().PostgresDatabases(r.Namespace).Get(ctx, name, getOpts)
	if err != nil {
		return nil, fmt.Errorf("get PostgresDatabase %s/%s: %w", r.Namespace, name, err)
	}
	if !o.Anyway {
		if err := usable(db); err != nil {
			return nil, err
		}
	}
	spec, err := pickDatabase(db, o.Database)
	if err != nil {
		return nil, err
	}
	keys, err := keysOf(db.Name, spec, o.Role)
	if err != nil {
		return nil, err
	}
	cmName := naming.Database(db.Name, spec.Name).ConfigMap
	cm, err := r.Kube.CoreV1().ConfigMaps(r.Namespace).Get(ctx, cmName, getOpts)
	if err != nil {
		return nil, fmt.Errorf("connection ConfigMap %s (published once the database's ConfigMapsReady is True): %w", cmName, err)
	}
	// Even --anyway reads only what setpoint published: a ConfigMap of
	// that name that is someone else's (ConfigMapConflict) describes no
	// role of this database.
	if why := notSetpoints(cm, "PostgresDatabase", db.Name, string(db.UID)); why != "" {
		return nil, fmt.Errorf("ConfigMap %s %s; `kubectl setpoint explain %s` says what to do", cmName, why, db.Name)
	}
	c, err := fromConfigMap(cm.Data, keys, o)
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s: %w", cmName, err)
	}
	if o.WithPassword && c.CertSecret == "" {
		if c.Password, err = r.password(ctx, c.Secret); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func fromConfigMap(d map[string]string, keys roleKey, o ConnectionOptions) (*Connection, error) {
	c := &Connection{Host: d[naming.KeyHost], Port: d[naming.KeyPort], Database: d[naming.KeyDatabase],
		User: d[keys.user], CASecret: d[naming.KeyCASecret], CASecretKey: d[naming.KeyCASecretKey], SSLMode: d[naming.KeySSLMode]}
	byCert := d[naming.KeyAuthentication] == string(pgv1.AuthenticationCertificate)
	if o.Pooler {
		switch {
		case byCert:
			return nil, fmt.Errorf("the database logs in by certificate, and PgBouncer logs in to Postgres with passwords: connect without --pooler")
		case d[naming.KeyPoolerHost] == "":
			return nil, fmt.Errorf("no %s: the cluster has no connection pooler", naming.KeyPoolerHost)
		}
		c.Host = d[naming.KeyPoolerHost]
	}
	secretKey := keys.secret
	if byCert {
		secretKey, c.CertSecret = keys.cert, d[keys.cert]
	} else {
		c.Secret = d[keys.secret]
	}
	if c.User == "" || d[secretKey] == "" {
		hint := ""
		if o.Role == "ro" {
			hint = " (readOnlyRole: true adds ro)"
		}
		return nil, fmt.Errorf("no %s / %s: the database has no %s role%s", keys.user, secretKey, o.Role, hint)
	}
	return c, nil
}

// ClientCertificate is the role's certificate and key, for a connection
// by certificate.
func (r Reader) ClientCertificate(ctx context.Context, c *Connection) (cert, key []byte, err error) {
	s, err := r.Kube.CoreV1().Secrets(r.Namespace).Get(ctx, c.CertSecret, metav1.GetOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("get Secret %s: %w", c.CertSecret, err)
	}
	cert, key = s.Data["tls.crt"], s.Data["tls.key"]
	if len(cert) == 0 || len(key) == 0 {
		return nil, nil, fmt.Errorf("secret %s has no tls.crt and tls.key (CloudNativePG writes them once it issued the certificate)", c.CertSecret)
	}
	return cert, key, nil
}

// password reads the role's password; it goes only where the caller puts
// it (a URI with --show-password, PGPASSWORD for psql), never into errors.
func (r Reader) password(ctx context.Context, secret string) (string, error) {
	s, err := r.Kube.CoreV1().Secrets(r.Namespace).Get(ctx, secret, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("get Secret %s: %w", secret, err)
	}
	p, ok := s.Data["password"]
	if !ok || len(p) == 0 {
		return "", fmt.Errorf("secret %s has no password", secret)
	}
	return string(p), nil
}

// pickDatabase is the spec entry for database (a Postgres name), or the
// only one when database is empty.
func pickDatabase(db *pgv1.PostgresDatabase, database string) (pgv1.DatabaseSpec, error) {
	var names []string
	for _, d := range db.Spec.Databases {
		if d.Name == database || (database == "" && len(db.Spec.Databases) == 1) {
			return d, nil
		}
		names = append(names, d.Name)
	}
	if database == "" {
		return pgv1.DatabaseSpec{}, fmt.Errorf("PostgresDatabase %s has databases %v: choose one with --database", db.Name, names)
	}
	return pgv1.DatabaseSpec{}, fmt.Errorf("PostgresDatabase %s has no database %q (it has %v)", db.Name, database, names)
}

// URI is the libpq connection URI; the password is in it only when it was
// read (--show-password). sslrootcert is left to the caller: the CA is in
// a Secret, not a file.
func (c *Connection) URI() string {
	u := url.URL{Scheme: "postgresql", Host: c.Host + ":" + c.Port, Path: "/" + c.Database}
	if c.Password != "" {
		u.User = url.UserPassword(c.User, c.Password)
	} else {
		u.User = url.User(c.User)
	}
	q := url.Values{}
	if c.SSLMode != "" {
		q.Set("sslmode", c.SSLMode)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// CACertificate is the root certificate the server is verified with.
func (r Reader) CACertificate(ctx context.Context, c *Connection) ([]byte, error) {
	s, err := r.Kube.CoreV1().Secrets(r.Namespace).Get(ctx, c.CASecret, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get CA Secret %s: %w", c.CASecret, err)
	}
	ca := s.Data[c.CASecretKey]
	if len(ca) == 0 {
		return nil, fmt.Errorf("CA Secret %s has no key %s", c.CASecret, c.CASecretKey)
	}
	return ca, nil
}
