package cnpgsim

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

const (
	caCertKey    = "ca.crt"
	caKeyKey     = "ca.key"
	reloadLabel  = "cnpg.io/reload"
	clusterLabel = "cnpg.io/cluster"
)

func caSecretName(cluster string) string { return cluster + "-ca" }

// ownedBy makes the Cluster the controller of a child, so the garbage
// collector removes the child with it, as with CNPG's own children.
func ownedBy(c *cnpgv1.Cluster) []metav1.OwnerReference {
	return []metav1.OwnerReference{*metav1.NewControllerRef(c, cnpgv1.SchemeGroupVersion.WithKind("Cluster"))}
}

// ensureCASecret publishes the CA that signs the server certificate in
// `<name>-ca`, where clients find the trust anchor.
func (s *Simulator) ensureCASecret(ctx context.Context, c *cnpgv1.Cluster, ca *authority) error {
	name := caSecretName(c.Name)
	existing, err := s.secrets.Secrets(c.Namespace).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: c.Namespace,
				Labels:          map[string]string{clusterLabel: c.Name},
				OwnerReferences: ownedBy(c),
			},
			Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{caCertKey: ca.certPEM, caKeyKey: ca.keyPEM},
		}
		if _, err := s.kube.CoreV1().Secrets(c.Namespace).Create(ctx, secret, metav1.CreateOptions{FieldManager: s.opts.FieldManager}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CA secret: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("get CA secret: %w", err)
	}
	if bytes.Equal(existing.Data[caCertKey], ca.certPEM) && bytes.Equal(existing.Data[caKeyKey], ca.keyPEM) {
		return nil
	}
	// Shared-backend mode, or a Secret someone replaced: the server's CA wins.
	next := existing.DeepCopy()
	next.Data = map[string][]byte{caCertKey: ca.certPEM, caKeyKey: ca.keyPEM}
	if _, err := s.kube.CoreV1().Secrets(c.Namespace).Update(ctx, next, metav1.UpdateOptions{FieldManager: s.opts.FieldManager}); err != nil {
		return fmt.Errorf("update CA secret: %w", err)
	}
	return nil
}

// superuserSecretName is where the superuser password comes from when
// superuser access is on: the named Secret, or `<name>-superuser`, which
// CNPG generates when none is named.
func superuserSecretName(c *cnpgv1.Cluster) string {
	if c.Spec.SuperuserSecret != nil && c.Spec.SuperuserSecret.Name != "" {
		return c.Spec.SuperuserSecret.Name
	}
	return c.Name + "-superuser"
}

func superuserAccess(c *cnpgv1.Cluster) bool {
	return c.Spec.EnableSuperuserAccess != nil && *c.Spec.EnableSuperuserAccess
}

// ensureGeneratedSuperuserSecret creates `<name>-superuser` with a random
// password when superuser access is on and no Secret is named.
func (s *Simulator) ensureGeneratedSuperuserSecret(ctx context.Context, c *cnpgv1.Cluster) error {
	if !superuserAccess(c) || (c.Spec.SuperuserSecret != nil && c.Spec.SuperuserSecret.Name != "") {
		return nil
	}
	name := superuserSecretName(c)
	if _, err := s.secrets.Secrets(c.Namespace).Get(name); err == nil {
		return nil
	}
	password := rand.Text()
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: c.Namespace,
			Labels:          map[string]string{clusterLabel: c.Name},
			OwnerReferences: ownedBy(c),
		},
		Type: corev1.SecretTypeBasicAuth,
		StringData: map[string]string{
			corev1.BasicAuthUsernameKey: "postgres",
			corev1.BasicAuthPasswordKey: password,
		},
	}
	if _, err := s.kube.CoreV1().Secrets(c.Namespace).Create(ctx, secret, metav1.CreateOptions{FieldManager: s.opts.FieldManager}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create superuser secret: %w", err)
	}
	return nil
}

// usesSecret says whether a Cluster reads a Secret's password.
func usesSecret(c *cnpgv1.Cluster, secret string) bool {
	if superuserAccess(c) && superuserSecretName(c) == secret {
		return true
	}
	if cc := c.Spec.Certificates; cc != nil && (cc.ClientCASecret == secret || cc.ReplicationTLSSecret == secret) {
		return true
	}
	if c.Spec.Managed == nil {
		return false
	}
	for _, role := range c.Spec.Managed.Roles {
		if role.PasswordSecret != nil && role.PasswordSecret.Name == secret {
			return true
		}
	}
	return false
}

// secretPassword reads a basic-auth Secret's password and the Secret's
// version, checking that its username is the role's, as CNPG does.
func (s *Simulator) secretPassword(namespace, secretName, role string) (password, version string, err error) {
	secret, err := s.secrets.Secrets(namespace).Get(secretName)
	if err != nil {
		return "", "", fmt.Errorf("while getting password secret %q: %w", secretName, err)
	}
	if user := string(secret.Data[corev1.BasicAuthUsernameKey]); user != role {
		return "", "", fmt.Errorf("wrong username '%s' in secret, expected '%s'", user, role)
	}
	p, ok := secret.Data[corev1.BasicAuthPasswordKey]
	if !ok {
		return "", "", fmt.Errorf("secret %q has no %q key", secretName, corev1.BasicAuthPasswordKey)
	}
	return string(p), secret.ResourceVersion, nil
}
