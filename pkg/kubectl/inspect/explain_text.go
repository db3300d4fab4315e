package inspect

import (
	"fmt"
	"io"
	"strings"
)

// WriteExplanation prints e for a person; a cluster behind a database is
// indented under it.
func WriteExplanation(w io.Writer, e *Explanation) error {
	var b strings.Builder
	writeExplanation(&b, e, "")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeExplanation(b *strings.Builder, e *Explanation, indent string) {
	p := func(format string, a ...any) { fmt.Fprintf(b, indent+format+"\n", a...) }
	switch {
	case e.Ready:
		p("%s is Ready.", e.Object)
		writeBackupHealth(p, e.Backup)
		writeUpgrade(p, e.Upgrade)
		return
	case e.Condition == nil:
		p("%s: %s", e.Object, orNone(e.Phase))
	default:
		p("%s is not Ready: %s", e.Object, orNone(e.Phase))
		c := e.Condition
		p("  blocked at:  %s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message)
	}
	for _, c := range e.Causes {
		p("  caused by:   %s: %s", c.Object, c.Status)
	}
	if e.Advice != "" {
		p("  what to do:  %s", e.Advice)
	}
	writeBackupHealth(p, e.Backup)
	writeUpgrade(p, e.Upgrade)
	if e.Cluster != nil {
		writeExplanation(b, e.Cluster, indent+"    ")
	}
}

// writeBackupHealth adds backups that are not healthy, with what to do.
func writeBackupHealth(p func(format string, a ...any), b *BackupHealth) {
	if b == nil {
		return
	}
	c := b.Condition
	p("  backups:     %s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message)
	if b.Advice != "" {
		p("  what to do:  %s", b.Advice)
	}
}
