package cnpgsim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// baseSettings are what CNPG fixes for every instance (TLS 1.3 only, SCRAM)
// plus what makes throw-away servers cheap. They sit in an included file
// so that ALTER SYSTEM (postgresql.auto.conf) still overrides the tunables.
const baseSettings = `# Written by cnpgsim; ALTER SYSTEM settings override these.
ssl = on
ssl_cert_file = 'server.crt'
ssl_key_file = 'server.key'
# The Cluster's CA verifies client certificates, as CNPG's client CA does.
ssl_ca_file = 'ca.crt'
ssl_min_protocol_version = 'TLSv1.3'
password_encryption = 'scram-sha-256'
# Passwords reach the server only as SCRAM verifiers, and no statement is
# logged either way.
log_statement = 'none'
shared_buffers = '32MB'
# No fsync: a machine crash may lose data, a server crash may not (commits
# still reach the OS before they return), which the crash fault relies on.
fsync = off
full_page_writes = off
`

// archiveSettings turn WAL archiving on, as CNPG always does; the command
// and, for a recovering server, restore_command and the target live in
// files of their own, rewritten as the Cluster changes. A restored server
// inherits this file from its base backup, includes and all.
const archiveSettings = `archive_mode = on
archive_timeout = '5min'
include_if_exists '` + archiveConfFile + `'
include_if_exists '` + recoveryConfFile + `'
`

// hbaConfig is the server's access policy.
type hbaConfig struct {
	// userLines are spec.postgresql.pg_hba, placed where CNPG places them:
	// after its own rules, before the final catch-all.
	userLines []string
	// trustSuperuser lets postgres (and setpoint_monitor, setpoint's
	// per-cluster monitor role) in over TCP without a password: in
	// shared-backend mode one role cannot hold every Cluster's password.
	trustSuperuser bool
}

func (h hbaConfig) render(clientUser string) (hba, ident string) {
	var b strings.Builder
	b.WriteString("# Written by cnpgsim.\n")
	b.WriteString("local all all peer map=cnpgsim\n")
	// pg_basebackup connects for replication, which "all" does not cover.
	b.WriteString("local replication postgres peer map=cnpgsim\n")
	if h.trustSuperuser {
		b.WriteString("hostssl all postgres 127.0.0.1/32 trust\n")
		// setpoint's monitor role is one per Cluster too, by name: every
		// Cluster's DatabaseRole of it sets its one password.
		b.WriteString("hostssl all setpoint_monitor 127.0.0.1/32 trust\n")
	}
	for _, l := range h.userLines {
		b.WriteString(l + "\n")
	}
	b.WriteString("host all all all scram-sha-256\n")
	ident = fmt.Sprintf("cnpgsim %s postgres\ncnpgsim postgres postgres\n", clientUser)
	return b.String(), ident
}

// writeBaseConfig runs once after initdb. A shared server does not
// archive: its WAL holds every Cluster's changes.
func (s *server) writeBaseConfig(maxConnections int, archive bool) error {
	settings := baseSettings + fmt.Sprintf("max_connections = %d\n", maxConnections)
	if archive {
		settings += archiveSettings
	}
	if err := s.owner.writeFile(filepath.Join(s.dataDir(), "cnpgsim.conf"), []byte(settings)); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.dataDir(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open postgresql.conf: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString("\ninclude 'cnpgsim.conf'\ninclude_if_exists '" + paramsFile + "'\n"); err != nil {
		return fmt.Errorf("append to postgresql.conf: %w", err)
	}
	return nil
}

// writeHBA writes pg_hba.conf and pg_ident.conf, reporting whether
// pg_hba.conf changed (then the server needs a reload).
func (s *server) writeHBA(h hbaConfig) (changed bool, err error) {
	hba, ident := h.render(s.owner.client)
	identChanged, err := s.writeIfChanged("pg_ident.conf", []byte(ident))
	if err != nil {
		return false, err
	}
	hbaChanged, err := s.writeIfChanged("pg_hba.conf", []byte(hba))
	return identChanged || hbaChanged, err
}

// writeCert installs the server certificate and the CA that verifies
// client certificates, reporting whether they changed.
func (s *server) writeCert(caPEM, certPEM, keyPEM []byte) (changed bool, err error) {
	caChanged, err := s.writeIfChanged("ca.crt", caPEM)
	if err != nil {
		return false, err
	}
	if changed, err = s.writeIfChanged("server.crt", certPEM); err != nil || !changed {
		return caChanged || changed, err
	}
	return true, s.owner.writeFile(filepath.Join(s.dataDir(), "server.key"), keyPEM)
}

func (s *server) writeIfChanged(name string, data []byte) (bool, error) {
	path := filepath.Join(s.dataDir(), name)
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return false, nil
	}
	return true, s.owner.writeFile(path, data)
}

// reload makes a running server re-read its files (pg_hba, certificates,
// postgresql.auto.conf).
func (s *server) reload(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := s.connect(ctx, "postgres")
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return fmt.Errorf("reload configuration: %w", err)
	}
	return nil
}
