package e2e_test

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// metricsReaderRole is the shipped ClusterRole that may scrape /metrics.
const metricsReaderRole = "setpoint-metrics-reader"

// scrapeMetrics GETs url, with a bearer token when token is set. The
// operator's certificate is self-signed, as a Prometheus scraping with
// insecureSkipVerify would accept it.
func scrapeMetrics(ctx context.Context, url, token string) (int, string, error) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // self-signed serving certificate
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// serviceAccountToken creates ServiceAccount ns/name (unless it exists) and
// returns a token for it from the TokenRequest API, as the kubelet gets one.
func serviceAccountToken(t *testing.T, ns, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if _, err := kube.CoreV1().ServiceAccounts(ns).Create(t.Context(), sa, metav1.CreateOptions{}); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("create ServiceAccount %s/%s: %v", ns, name, err)
	}
	tr, err := kube.CoreV1().ServiceAccounts(ns).CreateToken(t.Context(), name, &authnv1.TokenRequest{
		Spec: authnv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for %s/%s: %v", ns, name, err)
	}
	return tr.Status.Token
}

// metricsReaderToken returns a token of a ServiceAccount bound to the
// shipped metrics-reader ClusterRole (apply manifests/rbac first).
func metricsReaderToken(t *testing.T, ns string) string {
	t.Helper()
	token := serviceAccountToken(t, ns, "scraper")
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "scraper-" + ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsReaderRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "scraper", Namespace: ns}},
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(t.Context(), crb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("bind %s: %v", metricsReaderRole, err)
	}
	t.Cleanup(func() {
		_ = kube.RbacV1().ClusterRoleBindings().Delete(context.WithoutCancel(t.Context()), crb.Name, metav1.DeleteOptions{})
	})
	return token
}

// /metrics over HTTPS: no token 401, a token without the role 403, a
// ServiceAccount bound to the shipped metrics-reader role 200.
func TestMetricsAuthorization(t *testing.T) {
	applyManifests(t, "../../manifests/rbac")
	ns := newNamespace(t)
	op := startOperator(t, "metrics-op", "--leader-elect=false", "--namespace", ns, "--metrics-secure=true")
	url := "https://" + op.metricsAddr + "/metrics"
	reader := metricsReaderToken(t, ns)
	stranger := serviceAccountToken(t, ns, "stranger")

	for _, c := range []struct {
		who, token string
		want       int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"a forged token", "not-a-token", http.StatusUnauthorized},
		{"a ServiceAccount without the role", stranger, http.StatusForbidden},
		{"a ServiceAccount bound to " + metricsReaderRole, reader, http.StatusOK},
	} {
		code, body, err := scrapeMetrics(t.Context(), url, c.token)
		if err != nil {
			t.Fatalf("%s: %v", c.who, err)
		}
		if code != c.want {
			t.Errorf("%s: status %d, want %d: %s", c.who, code, c.want, body)
		}
		if code == http.StatusOK && !strings.Contains(body, "setpoint_api_requests_total") {
			t.Errorf("%s: 200 without the operator's metrics", c.who)
		}
		if code != http.StatusOK && strings.Contains(body, "setpoint_") {
			t.Errorf("%s: metrics leaked with status %d", c.who, code)
		}
	}
	// Plain HTTP to the HTTPS port is refused, not served.
	if code, _, err := scrapeMetrics(t.Context(), "http://"+op.metricsAddr+"/metrics", ""); err == nil && code == http.StatusOK {
		t.Errorf("plain HTTP scrape answered 200")
	}
}
