package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Setting is a row of pg_settings, with the value a caller wants for it
// as Postgres itself reads that value.
type Setting struct {
	// Name is Postgres's spelling ("TimeZone"), whatever the caller wrote.
	Name    string
	Setting string
	Unit    string
	// Context is pg_settings.context: user and superuser parameters can be
	// set in a session, the others (postmaster, sighup, ...) cannot.
	Context        string
	PendingRestart bool
	// Normalized is the wanted value in pg_settings form (base units,
	// canonical spelling: "ISO" becomes "ISO, MDY", "16MB" becomes
	// "16384"), as Postgres parsed it in a rolled-back set_config; nil
	// when the parameter cannot be set in a session.
	Normalized *string
	// Invalid is Postgres's error when it refused the wanted value.
	Invalid string
}

// sessionContexts are the pg_settings contexts whose parameters a
// session may change with set_config inside a transaction, by whether the
// session is a superuser's: anyone may set a user parameter, only a
// superuser (or a role granted SET on it) a superuser one. Any other role
// — setpoint's monitor among them — gets "permission denied to set
// parameter", which says nothing about the value.
var sessionContexts = map[bool]map[string]bool{
	true:  {"user": true, "superuser": true},
	false: {"user": true},
}

// ReadSettings returns the pg_settings row of each wanted parameter, keyed
// by the caller's name. Names match case-insensitively, as Postgres
// matches them in postgresql.conf ("timezone" is "TimeZone"). A parameter
// Postgres does not know is absent from the result.
func ReadSettings(ctx context.Context, conn *pgx.Conn, want map[string]string) (map[string]Setting, error) {
	lower := make([]string, 0, len(want))
	for k := range want {
		lower = append(lower, strings.ToLower(k))
	}
	rows, err := conn.Query(ctx,
		"SELECT name, setting, coalesce(unit, ''), context, pending_restart FROM pg_settings WHERE lower(name) = ANY($1)", lower)
	if err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	byLower := map[string]Setting{}
	for rows.Next() {
		var s Setting
		if err := rows.Scan(&s.Name, &s.Setting, &s.Unit, &s.Context, &s.PendingRestart); err != nil {
			return nil, fmt.Errorf("scan pg_settings: %w", err)
		}
		byLower[strings.ToLower(s.Name)] = s
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	out := map[string]Setting{}
	for k := range want {
		if s, ok := byLower[strings.ToLower(k)]; ok {
			out[k] = s
		}
	}
	return out, normalize(ctx, conn, want, out)
}

// normalize asks Postgres how it reads each wanted value of a parameter
// that this session can set: set_config in a transaction that is rolled
// back, then the parameter's pg_settings form. Postgres's own parsing
// (units, list and enum spellings, time zone names) is not re-implemented.
// The others are compared with Matches, as postmaster parameters are.
// Whether the session is a superuser's the server reports at login
// (is_superuser), so it costs no statement.
func normalize(ctx context.Context, conn *pgx.Conn, want map[string]string, settings map[string]Setting) (err error) {
	settable := sessionContexts[conn.PgConn().ParameterStatus("is_superuser") == "on"]
	if !slices.ContainsFunc(slices.Collect(maps.Values(settings)), func(s Setting) bool { return settable[s.Context] }) {
		return nil // no transaction for nothing
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if rerr := tx.Rollback(context.WithoutCancel(ctx)); rerr != nil && err == nil {
			err = fmt.Errorf("rollback: %w", rerr)
		}
	}()
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		s := settings[k]
		if !settable[s.Context] {
			continue
		}
		if _, err := tx.Exec(ctx, "SAVEPOINT normalize"); err != nil {
			return fmt.Errorf("savepoint: %w", err)
		}
		// Two statements: within one, pg_settings could be read first.
		_, err := tx.Exec(ctx, "SELECT set_config($1, $2, true)", s.Name, want[k])
		var normalized string
		if err == nil {
			err = tx.QueryRow(ctx, "SELECT setting FROM pg_settings WHERE name = $1", s.Name).Scan(&normalized)
		}
		var pgErr *pgconn.PgError
		switch {
		case errors.As(err, &pgErr):
			s.Invalid = pgErr.Message
		case err != nil:
			return fmt.Errorf("normalize %s: %w", s.Name, err)
		default:
			s.Normalized = &normalized
		}
		if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT normalize"); err != nil {
			return fmt.Errorf("rollback to savepoint: %w", err)
		}
		settings[k] = s
	}
	return nil
}

// InEffect reports whether the setting's effective value is want. When
// Postgres normalised want, the two pg_settings forms must be equal;
// otherwise (parameters only the server's configuration can set) they are
// compared as a user would write them, with Matches.
func (s Setting) InEffect(want string) bool {
	if s.Invalid != "" {
		return false
	}
	if s.Normalized != nil {
		return *s.Normalized == s.Setting
	}
	return s.Matches(want)
}

// Matches reports whether the setting's effective value equals want, as a
// user would write it in postgresql.conf: "16MB" equals 16384 with unit
// "kB", "on" equals "true", "1min" equals 60 with unit "s".
func (s Setting) Matches(want string) bool {
	want = strings.TrimSpace(want)
	if strings.EqualFold(want, s.Setting) {
		return true
	}
	if b, ok := parseBool(want); ok {
		got, ok2 := parseBool(s.Setting)
		return ok2 && b == got
	}
	if s.Unit == "" {
		if w, err1 := strconv.ParseFloat(want, 64); err1 == nil {
			g, err2 := strconv.ParseFloat(s.Setting, 64)
			return err2 == nil && w == g
		}
		return false
	}
	wantBase, ok1 := toBase(want, "")
	gotBase, ok2 := toBase(s.Setting, s.Unit)
	return ok1 && ok2 && math.Abs(wantBase-gotBase) < 1e-9*math.Max(1, math.Abs(gotBase))
}

// unitFactors converts memory units to bytes and time units to
// microseconds; the two families never compare with each other because a
// parameter has one unit.
var unitFactors = map[string]float64{
	"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40,
	"us": 1, "ms": 1e3, "s": 1e6, "min": 60e6, "h": 3600e6, "d": 86400e6,
}

// toBase parses "16MB" (unit in the value) or "16384" with defaultUnit
// "kB" or "8kB" (pg_settings units may carry a multiplier).
func toBase(v, defaultUnit string) (float64, bool) {
	v = strings.TrimSpace(v)
	i := 0
	for i < len(v) && (v[i] == '-' || v[i] == '.' || (v[i] >= '0' && v[i] <= '9')) {
		i++
	}
	n, err := strconv.ParseFloat(v[:i], 64)
	if err != nil {
		return 0, false
	}
	unit := strings.TrimSpace(v[i:])
	if unit == "" {
		unit = defaultUnit
	}
	mult := 1.0
	if j := strings.IndexFunc(unit, func(r rune) bool { return r < '0' || r > '9' }); j > 0 {
		m, _ := strconv.ParseFloat(unit[:j], 64)
		mult, unit = m, unit[j:]
	}
	if unit == "" {
		return n * mult, true
	}
	f, ok := unitFactors[unit]
	return n * mult * f, ok
}

func parseBool(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "on", "true", "yes", "1":
		return true, true
	case "off", "false", "no", "0":
		return false, true
	}
	return false, false
}
