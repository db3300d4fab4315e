package cnpgsim

import (
	"fmt"
	"sync"
	"time"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// CNPG's instance manager reads a DatabaseRole's password Secret as the
// Cluster's ServiceAccount, whose Role CNPG's operator keeps naming every
// Secret a DatabaseRole uses (createOrPatchRole). The operator adds a new
// one in its next Cluster reconcile, after the DatabaseRole appears; the
// instance manager, woken by the same DatabaseRole, usually tries first,
// is forbidden to read the Secret, and tries again only after its 30 s
// reconciliation interval — or at once when the object changes. Seen on
// real CNPG 1.30 for most new roles (docs/development/stand-in.md). With
// Options.SecretRace the stand-in plays it: the instance may read a Secret
// secretGrantDelay after a DatabaseRole first named it to the stand-in.

// secretGrantDelay stands for the operator's Cluster reconcile that
// extends the instance Role.
const secretGrantDelay = 300 * time.Millisecond

// secretForbiddenRetry is CNPG's databaseRoleReconciliationInterval, after
// which a failed DatabaseRole is tried again when nothing changed it.
const secretForbiddenRetry = 30 * time.Second

// secretGrants is the instance Role's Secrets: when each became, or
// becomes, readable.
type secretGrants struct {
	mu sync.Mutex
	at map[string]time.Time
}

// readable reports whether the instance may read secret at now; the first
// question about a Secret starts its grant.
func (g *secretGrants) readable(secret string, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.at == nil {
		g.at = map[string]time.Time{}
	}
	at, ok := g.at[secret]
	if !ok {
		at = now.Add(secretGrantDelay)
		g.at[secret] = at
	}
	return !now.Before(at)
}

// msgSecretForbidden is the API server's Forbidden error as CNPG quotes
// it in status.message, word for word from the real-CNPG tier.
func msgSecretForbidden(role *cnpgv1.DatabaseRole, secret string) string {
	return fmt.Sprintf(`secrets %q is forbidden: User "system:serviceaccount:%s:%s" cannot get resource "secrets" in API group "" in the namespace %q`,
		secret, role.Namespace, role.Spec.Cluster.Name, role.Namespace)
}

// secretRace is the instance manager's failure to read the role's Secret
// while the instance Role does not name it yet; ok is false when it may.
func (s *Simulator) secretRace(inst *instance, role *cnpgv1.DatabaseRole) (msg string, ok bool) {
	if !s.opts.SecretRace || role.Spec.PasswordSecret == nil || role.Spec.PasswordSecret.Name == "" {
		return "", false
	}
	name := role.Spec.PasswordSecret.Name
	if inst.secrets.readable(name, time.Now()) {
		return "", false
	}
	return msgSecretForbidden(role, name), true
}
