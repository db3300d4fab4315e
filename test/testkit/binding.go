package testkit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Binding is a Service Binding Secret as a workload sees it: its
// entries, by name (ReadBinding).
type Binding map[string]string

// bindingEntry is the file-name rule the Service Binding specification
// (1.0, application projection) gives a Secret's entries.
var bindingEntry = regexp.MustCompile(`^[a-z0-9\-\.]{1,253}$`)

// ReadBinding reads s as the Service Binding specification says a
// workload reads its projection, and errs where s breaks it: type
// servicebinding.io/<type> with a type entry <type> (here postgresql)
// and a provider entry; every entry a valid file name; the well-known
// entries as the specification requires them (host DNS-resolvable, port
// a port number, uri an RFC 3986 URI, username and password strings);
// uri agreeing with host, port, database, username, password and
// sslmode; and sslrootcert naming an entry of the binding that is a PEM
// certificate, as Spring Cloud Bindings and Quarkus take it.
func ReadBinding(s *corev1.Secret) (Binding, error) {
	b := Binding{}
	var errs []error
	for k, v := range s.Data {
		if !bindingEntry.MatchString(k) {
			errs = append(errs, fmt.Errorf("entry %q is not a valid binding file name", k))
		}
		b[k] = string(v)
	}
	if b["type"] != "postgresql" || string(s.Type) != "servicebinding.io/"+b["type"] {
		errs = append(errs, fmt.Errorf("Secret type %q and type entry %q, want servicebinding.io/postgresql and postgresql", s.Type, b["type"]))
	}
	if b["provider"] == "" {
		errs = append(errs, errors.New("no provider entry"))
	}
	if e := validation.IsDNS1123Subdomain(b["host"]); len(e) > 0 {
		errs = append(errs, fmt.Errorf("host %q: %s", b["host"], strings.Join(e, "; ")))
	}
	if p, err := strconv.Atoi(b["port"]); err != nil || p < 1 || p > 65535 {
		errs = append(errs, fmt.Errorf("port %q is no port number", b["port"]))
	}
	u, err := url.Parse(b["uri"])
	switch {
	case err != nil:
		// The inner error alone: url.Error quotes the whole uri, password included.
		errs = append(errs, fmt.Errorf("uri does not parse: %w", errors.Unwrap(err)))
	case u.Scheme != "postgresql" || u.Hostname() != b["host"] || u.Port() != b["port"] || u.Path != "/"+b["database"] ||
		u.User.Username() != b["username"] || u.Query().Get("sslmode") != b["sslmode"]:
		errs = append(errs, errors.New("uri does not agree with host, port, database, username and sslmode"))
	default:
		if pw, set := u.User.Password(); set != (b["password"] != "") || pw != b["password"] {
			errs = append(errs, errors.New("uri does not carry the password entry"))
		}
	}
	if f := b["sslrootcert"]; f != "" {
		if blk, _ := pem.Decode([]byte(b[f])); blk == nil || blk.Type != "CERTIFICATE" {
			errs = append(errs, fmt.Errorf("sslrootcert names %q, no PEM certificate of the binding", f))
		}
	}
	return b, errors.Join(errs...)
}

// Project writes b's entries as files into dir, as the kubelet projects
// a binding into $SERVICE_BINDING_ROOT/<name>.
func (b Binding) Project(dir string) error {
	for k, v := range b {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// URIConfig is what a libpq program makes of a projected binding: the
// connection URI of entry key (uri or pooler-uri) as it is, with the
// files its sslrootcert, sslcert and sslkey entries name in the
// binding's directory dir (what PGSSLROOTCERT, PGSSLCERT and PGSSLKEY
// would say).
func (b Binding) URIConfig(key, dir string) (*pgx.ConnConfig, error) {
	s := b[key]
	for param, entry := range map[string]string{"sslrootcert": "sslrootcert", "sslcert": "sslcert", "sslkey": "sslkey"} {
		if f := b[entry]; f != "" {
			s += "&" + param + "=" + url.QueryEscape(filepath.Join(dir, f))
		}
	}
	return pgx.ParseConfig(s)
}

// JDBCConfig is what a JDBC driver makes of jdbc-url with the username
// and password entries beside it (Spring Cloud Bindings and Quarkus set
// them apart from the URL): host, port and database from the URL, the
// server verified as sslmode says against the CA the URL carries inline
// (sslfactoryarg), and nothing else.
func (b Binding) JDBCConfig() (*pgx.ConnConfig, error) {
	rest, ok := strings.CutPrefix(b["jdbc-url"], "jdbc:")
	if !ok {
		return nil, fmt.Errorf("jdbc-url %q is no JDBC URL", b["jdbc-url"])
	}
	u, err := url.Parse(rest)
	if err != nil || u.Scheme != "postgresql" {
		return nil, fmt.Errorf("jdbc-url %q: %v", b["jdbc-url"], err)
	}
	q := u.Query()
	if q.Get("sslmode") != "verify-full" {
		return nil, fmt.Errorf("jdbc-url sslmode %q, want verify-full", q.Get("sslmode"))
	}
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%s dbname=%s sslmode=verify-full", u.Hostname(), u.Port(), strings.TrimPrefix(u.Path, "/")))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(q.Get("sslfactoryarg"))) {
		return nil, errors.New("jdbc-url carries no CA certificate (sslfactoryarg)")
	}
	cfg.TLSConfig = &tls.Config{ServerName: u.Hostname(), RootCAs: pool, MinVersion: tls.VersionTLS12}
	cfg.User, cfg.Password = b["username"], b["password"]
	return cfg, nil
}

// LoginByBinding connects with cfg, made from a binding (URIConfig,
// JDBCConfig), to cluster's Postgres: only the network path is the
// tier's (its Sessions' lookup and dial, which stand in for the
// cluster's DNS), the host name, TLS verification and credentials are
// the binding's. Within the kit's login timeout; closed with the test.
func (k Kit) LoginByBinding(t testing.TB, ns, cluster string, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), k.scaled(10*time.Second))
	defer cancel()
	if k.Sessions == nil {
		t.Fatal("this tier's kit has no Sessions")
	}
	service, _, _ := strings.Cut(cfg.Host, ".")
	tier, err := k.Sessions(ctx, ns, cluster, service, cfg.Database)
	if err != nil {
		t.Fatalf("the tier's path to %s: %v", cfg.Host, err)
	}
	cfg.LookupFunc, cfg.DialFunc = tier.LookupFunc, tier.DialFunc
	if cfg.LookupFunc == nil {
		cfg.LookupFunc = func(context.Context, string) ([]string, error) { return []string{tier.Host}, nil }
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = conn.Close(context.WithoutCancel(t.Context())) })
	return conn, nil
}

// WaitBinding waits until Secret name of ns is a binding Secret with the
// server's CA (the cluster's copy may come after the binding), and reads
// it (ReadBinding); a Secret that breaks the specification fails t.
func (k Kit) WaitBinding(t testing.TB, ns, name string) Binding {
	t.Helper()
	var b Binding
	k.Until(t, 60*time.Second, "binding Secret "+name+" with the server CA", func(ctx context.Context) (bool, error) {
		s, err := k.Kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if b, err = ReadBinding(s); err != nil {
			t.Fatalf("Secret %s is no binding as the specification says: %v", name, err)
		}
		return b["ca.crt"] != "", nil
	})
	return b
}

// BindingLogsIn checks that a program given only binding Secret name of
// cluster's database logs in as the binding's user to its database: a
// libpq one through uri (with the file sslrootcert names, the binding
// projected into a directory) and a JDBC one through jdbc-url with
// username and password (JDBCConfig).
func (k Kit) BindingLogsIn(t testing.TB, ns, cluster, name string) {
	t.Helper()
	b := k.WaitBinding(t, ns, name)
	dir := t.TempDir()
	if err := b.Project(dir); err != nil {
		t.Fatal(err)
	}
	uri, err := b.URIConfig("uri", dir)
	if err != nil {
		t.Fatalf("%s: uri: %v", name, err)
	}
	jdbc, err := b.JDBCConfig()
	if err != nil {
		t.Fatalf("%s: jdbc-url: %v", name, err)
	}
	for what, cfg := range map[string]*pgx.ConnConfig{"uri": uri, "jdbc-url": jdbc} {
		conn, err := k.LoginByBinding(t, ns, cluster, cfg)
		if err != nil {
			t.Fatalf("%s: login through %s: %v", name, what, err)
		}
		var user, database string
		if err := conn.QueryRow(t.Context(), "SELECT current_user, current_database()").Scan(&user, &database); err != nil {
			t.Fatal(err)
		}
		if user != b["username"] || database != b["database"] {
			t.Errorf("%s: through %s logged in as %s to %s, want %s to %s", name, what, user, database, b["username"], b["database"])
		}
	}
}
