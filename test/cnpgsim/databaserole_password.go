package cnpgsim

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// rolePasswordClause is what a DatabaseRole asks of the role's password,
// as CNPG's ApplyPassword (roles/contract.go) decides it: leave it alone
// (no Secret, password not disabled), NULL (disablePassword), or the
// Secret's.
type rolePasswordClause struct {
	keep    bool
	value   *string // nil: PASSWORD NULL, unless keep
	version string  // the Secret's resourceVersion, for secretResourceVersion
}

// passwordSecret reads a DatabaseRole's password Secret (nil when it names
// none) live, as CNPG's instance manager does (it caches no Secrets), so a
// missing one is reported as the API server's own
// `secrets "<name>" not found` (CNPG's detectMissingPasswordSecret).
func (s *Simulator) passwordSecret(ctx context.Context, role *cnpgv1.DatabaseRole) (*corev1.Secret, error) {
	if role.Spec.PasswordSecret == nil || role.Spec.PasswordSecret.Name == "" {
		return nil, nil
	}
	return s.kube.CoreV1().Secrets(role.Namespace).Get(ctx, role.Spec.PasswordSecret.Name, metav1.GetOptions{})
}

// rolePassword is CNPG's ApplyPassword and getPassword: the username must
// be the role's (both trimmed), and the password is trimmed.
func rolePassword(spec cnpgv1.DatabaseRoleSpec, secret *corev1.Secret) (rolePasswordClause, error) {
	if secret == nil {
		return rolePasswordClause{keep: !spec.DisablePassword}, nil
	}
	if spec.DisablePassword {
		// Refused by the CRD's CEL rule; CNPG's message for inline roles.
		return rolePasswordClause{}, fmt.Errorf("while getting the role password: cannot reconcile: password both provided and disabled: %s", secret.Name)
	}
	user, password, err := basicAuthPair(secret)
	if err != nil {
		return rolePasswordClause{}, fmt.Errorf("while getting the role password: %w", err)
	}
	if !trimmedEqual(user, spec.Name) {
		return rolePasswordClause{}, fmt.Errorf("while getting the role password: the username in secret %q does not match role %q", secret.Name, spec.Name)
	}
	password = strings.TrimSpace(password)
	return rolePasswordClause{value: &password, version: secret.ResourceVersion}, nil
}

// basicAuthPair is CNPG's GetUserPasswordFromSecret.
func basicAuthPair(secret *corev1.Secret) (user, password string, err error) {
	u, ok := secret.Data[corev1.BasicAuthUsernameKey]
	if !ok {
		return "", "", errors.New("username key doesn't exist inside the secret")
	}
	p, ok := secret.Data[corev1.BasicAuthPasswordKey]
	if !ok {
		return "", "", errors.New("password key doesn't exist inside the secret")
	}
	return string(u), string(p), nil
}

// passwordLiteral is what reaches Postgres for a password: a SCRAM-SHA-256
// verifier computed here, or the Secret's value as is when it already is a
// verifier (SCRAM or MD5), as CNPG's EnsureEncryptedPassword does.
func passwordLiteral(password string) (string, error) {
	if strings.HasPrefix(password, "SCRAM-SHA-256$") || isMD5Verifier(password) {
		return password, nil
	}
	v, err := scramVerifier(password)
	if err != nil {
		// Never wrap: nothing derived from the password goes into an error.
		return "", errors.New("encrypting password as SCRAM-SHA-256 failed")
	}
	return v, nil
}

func isMD5Verifier(s string) bool {
	if len(s) != 35 || !strings.HasPrefix(s, "md5") {
		return false
	}
	return strings.Trim(s[3:], "0123456789abcdef") == ""
}
