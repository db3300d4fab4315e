package inspect

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
)

// WritePrivileges prints, per database, the roles whose privileges differ
// from what is declared, a line per object: declared, held, and what the
// next pass does. Roles that hold exactly what is declared are counted,
// not listed (-o yaml lists every line).
func WritePrivileges(w io.Writer, ps []Privileges) error {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString("\n")
		}
		writePrivileges(&b, p)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writePrivileges(b *strings.Builder, p Privileges) {
	var differ []RolePrivilege
	for _, r := range p.Roles {
		if r.Differs() {
			differ = append(differ, r)
		}
	}
	mode := "kept exact: every pass grants what is declared and revokes what is not"
	if !p.Exact {
		mode = "granted once per generation (no schemas or roles declared): a difference stays until the spec changes"
	}
	fmt.Fprintf(b, "Database %s (%s)\n", p.Database, mode)
	fmt.Fprintf(b, "  %d of %d role(s) hold what the spec declares", len(p.Roles)-len(differ), len(p.Roles))
	if p.Exact {
		fmt.Fprintf(b, "; the next pass runs %d statement(s)", p.Statements)
	}
	b.WriteString(".\n")
	if len(differ) > 0 {
		tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  ROLE\tON\tDECLARED\tHELD\tNEXT PASS")
		for _, r := range differ {
			for _, l := range r.Lines {
				if l.Differs() {
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Role, l.On, privList(l.Declared), privList(l.Held), nextPass(l, p.Exact))
				}
			}
		}
		_ = tw.Flush()
	}
	for _, s := range p.LeftAlone {
		fmt.Fprintf(b, "  left alone: %s\n", s)
	}
	for _, s := range p.KeptSchemas {
		fmt.Fprintf(b, "  kept, not declared: schema %s (with its data)\n", s)
	}
}

func privList(ps []string) string {
	if len(ps) == 0 {
		return "-"
	}
	return strings.Join(ps, ",")
}

// nextPass is what setpoint does about line l.
func nextPass(l grantplan.Line, exact bool) string {
	if l.LeftAlone {
		return "left alone: another role owns it"
	}
	var do []string
	if len(l.Grant) > 0 {
		do = append(do, "grant "+strings.Join(l.Grant, ","))
	}
	if len(l.Revoke) > 0 {
		do = append(do, "revoke "+strings.Join(l.Revoke, ","))
	}
	if len(l.RevokeOption) > 0 {
		do = append(do, "revoke grant option for "+strings.Join(l.RevokeOption, ","))
	}
	s := strings.Join(do, "; ")
	if !exact {
		s = "not corrected (would " + s + ")"
	}
	return s
}
