package postgres

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Setting is a row of pg_settings.
type Setting struct {
	Name           string
	Setting        string
	Unit           string
	PendingRestart bool
}

// ReadSettings returns the pg_settings rows of names.
func ReadSettings(ctx context.Context, conn *pgx.Conn, names []string) (map[string]Setting, error) {
	rows, err := conn.Query(ctx,
		"SELECT name, setting, coalesce(unit, ''), pending_restart FROM pg_settings WHERE name = ANY($1)", names)
	if err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	out := map[string]Setting{}
	for rows.Next() {
		var s Setting
		if err := rows.Scan(&s.Name, &s.Setting, &s.Unit, &s.PendingRestart); err != nil {
			return nil, fmt.Errorf("scan pg_settings: %w", err)
		}
		out[s.Name] = s
	}
	return out, rows.Err()
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
