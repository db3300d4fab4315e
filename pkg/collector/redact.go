package collector

import (
	"errors"
	"strings"
)

// redact keeps a password out of an error's text. A sample's error ends
// up in logs, in the PostgresUnreachable condition's message and in
// Events; neither pgx nor the server is known to echo a password, but
// should a driver or a server message ever do so, this is the last line
// between it and the status of a cluster anyone with read access sees.
func redact(err error, password string) error {
	if err == nil || password == "" || !strings.Contains(err.Error(), password) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), password, "[redacted]"))
}
