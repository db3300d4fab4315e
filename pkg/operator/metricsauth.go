package operator

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strings"
	"sync"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// delegatedAuth protects /metrics the way Kubernetes components protect
// theirs: the bearer token is checked by the API server (TokenReview) and
// the request authorized by it (SubjectAccessReview on the non-resource
// URL, e.g. get /metrics), so a ClusterRole with nonResourceURLs decides
// who may scrape. Decisions are cached for a short while, as k8s.io/apiserver
// does, so a scrape every few seconds costs no review each time.
type delegatedAuth struct {
	kube kubernetes.Interface
	ttl  time.Duration
	now  func() time.Time

	mu    sync.Mutex
	cache map[[sha256.Size]byte]decision
}

// decision is a cached answer: the HTTP status to give.
type decision struct {
	status  int
	message string
	expires time.Time
}

// maxCachedDecisions bounds the cache; it is cleared when full.
const maxCachedDecisions = 1024

func newDelegatedAuth(kube kubernetes.Interface) *delegatedAuth {
	return &delegatedAuth{kube: kube, ttl: 10 * time.Second, now: time.Now, cache: map[[sha256.Size]byte]decision{}}
}

// wrap answers 401 without a valid token, 403 when the token's user may
// not get the path, and serves next otherwise.
func (a *delegatedAuth) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearerToken(r)
		if !ok {
			http.Error(w, "Unauthorized: a bearer token is required", http.StatusUnauthorized)
			return
		}
		verb := strings.ToLower(r.Method)
		d := a.decide(r.Context(), token, verb, r.URL.Path)
		if d.status != http.StatusOK {
			http.Error(w, d.message, d.status)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "bearer") && token != ""
}

func (a *delegatedAuth) decide(ctx context.Context, token, verb, path string) decision {
	key := sha256.Sum256([]byte(verb + " " + path + " " + token))
	now := a.now()
	a.mu.Lock()
	if d, ok := a.cache[key]; ok && now.Before(d.expires) {
		a.mu.Unlock()
		return d
	}
	a.mu.Unlock()
	d := a.review(ctx, token, verb, path)
	if d.status == http.StatusInternalServerError {
		return d // not cached: the API server may answer next time
	}
	d.expires = now.Add(a.ttl)
	a.mu.Lock()
	if len(a.cache) >= maxCachedDecisions {
		clear(a.cache)
	}
	a.cache[key] = d
	a.mu.Unlock()
	return d
}

// review asks the API server who the token is and whether it may verb path.
func (a *delegatedAuth) review(ctx context.Context, token, verb, path string) decision {
	logger := klog.FromContext(ctx)
	tr, err := a.kube.AuthenticationV1().TokenReviews().Create(ctx,
		&authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		logger.Error(err, "TokenReview for a metrics request failed")
		return decision{status: http.StatusInternalServerError, message: "authentication is unavailable"}
	}
	if !tr.Status.Authenticated {
		return decision{status: http.StatusUnauthorized, message: "Unauthorized"}
	}
	u := tr.Status.User
	extra := make(map[string]authzv1.ExtraValue, len(u.Extra))
	for k, v := range u.Extra {
		extra[k] = authzv1.ExtraValue(v)
	}
	sar, err := a.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authzv1.SubjectAccessReview{
		Spec: authzv1.SubjectAccessReviewSpec{
			User: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra,
			NonResourceAttributes: &authzv1.NonResourceAttributes{Path: path, Verb: verb},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		logger.Error(err, "SubjectAccessReview for a metrics request failed")
		return decision{status: http.StatusInternalServerError, message: "authorization is unavailable"}
	}
	if !sar.Status.Allowed {
		return decision{status: http.StatusForbidden,
			message: "Forbidden: user " + u.Username + " may not " + verb + " " + path}
	}
	return decision{status: http.StatusOK}
}
