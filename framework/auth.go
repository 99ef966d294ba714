package framework

import "context"

// TokenValidator is the optional bearer-token hook of an environment, used
// when the instance's config has an auth block (see config.AuthConfig):
// ValidateToken is given the token of a request's Authorization: Bearer
// header (never empty) and returns the principal, the caller it stands for
// (a user name, a struct of claims: any non-nil value), or an error to
// refuse it. A refused token is answered 401 {"error":"Invalid or
// unauthorized token"} before the request is read further; the error's
// text is logged, so it must not contain the token. The principal reaches
// the handlers and interceptors through the request context
// ([PrincipalOf], [Call.Principal]).
//
// The hook is tried after the built-in validators of the auth block (API
// keys, JWT), when they refuse the token or none is configured. It is
// called for every authenticated request, concurrently: cache what is
// costly. Put an interface guard next to it:
//
//	var _ framework.TokenValidator = (*Workplace)(nil)
type TokenValidator interface {
	ValidateToken(ctx context.Context, token string) (principal any, err error)
}
