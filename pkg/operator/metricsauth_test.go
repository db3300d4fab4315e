package operator

import (
	"net/http"
	"net/http/httptest"
	"testing"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	kubetesting "k8s.io/client-go/testing"
)

// fakeReviews answers TokenReviews (token "reader" and "stranger" are
// valid) and SubjectAccessReviews (only user "reader" may get /metrics),
// and counts them.
func fakeReviews(t *testing.T) (*fake.Clientset, *int) {
	t.Helper()
	kube := fake.NewClientset()
	reviews := 0
	kube.PrependReactor("create", "tokenreviews", func(a kubetesting.Action) (bool, runtime.Object, error) {
		reviews++
		tr := a.(kubetesting.CreateAction).GetObject().(*authnv1.TokenReview)
		switch tr.Spec.Token {
		case "reader", "stranger":
			tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: tr.Spec.Token}}
		}
		return true, tr, nil
	})
	kube.PrependReactor("create", "subjectaccessreviews", func(a kubetesting.Action) (bool, runtime.Object, error) {
		sar := a.(kubetesting.CreateAction).GetObject().(*authzv1.SubjectAccessReview)
		nr := sar.Spec.NonResourceAttributes
		sar.Status.Allowed = sar.Spec.User == "reader" && nr != nil && nr.Path == "/metrics" && nr.Verb == "get"
		return true, sar, nil
	})
	return kube, &reviews
}

func TestDelegatedAuth(t *testing.T) {
	kube, reviews := fakeReviews(t)
	h := newDelegatedAuth(kube).wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("metrics"))
	}))
	get := func(token string) int {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	for _, c := range []struct {
		token string
		want  int
	}{{"", 401}, {"forged", 401}, {"stranger", 403}, {"reader", 200}} {
		if got := get(c.token); got != c.want {
			t.Errorf("token %q: status %d, want %d", c.token, got, c.want)
		}
	}
	before := *reviews
	if get("reader") != 200 || get("stranger") != 403 {
		t.Fatal("cached decisions differ")
	}
	if *reviews != before {
		t.Errorf("%d more TokenReviews within the cache TTL", *reviews-before)
	}
}
