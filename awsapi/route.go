package awsapi

import (
	"mime"
	"net/http"
	"net/url"
	"strings"
)

const (
	headerTarget    = "X-Amz-Target"
	sqsTargetPrefix = "AmazonSQS."
	sqsSigningName  = "sqs"
	sigV4Algorithm  = "AWS4-HMAC-SHA256"
	formContentType = "application/x-www-form-urlencoded"
)

// Accepts reports whether r is an AWS request: it carries an X-Amz-Target
// header, a SigV4 signature (header or presigned), an Action parameter, or
// an AWS content type. httpapi asks only for requests none of Herald's own
// routes match, so Herald's API always wins its paths.
func (h *Handler) Accepts(r *http.Request) bool {
	if isJSONRequest(r) {
		return true
	}
	if strings.HasPrefix(r.Header.Get("Authorization"), sigV4Algorithm) {
		return true
	}
	q := r.URL.Query()
	if q.Has("Action") || q.Has("X-Amz-Credential") {
		return true
	}
	return r.Method == http.MethodPost && mediaType(r) == formContentType
}

// isJSONRequest reports whether r speaks AWS JSON 1.0 rather than Query:
// it names an X-Amz-Target or declares an AWS JSON content type.
func isJSONRequest(r *http.Request) bool {
	return r.Header.Get(headerTarget) != "" || isJSONContent(r)
}

// isJSONContent reports an AWS JSON content type (application/x-amz-json-1.0
// or 1.1), which marks a JSON request even when X-Amz-Target is missing.
func isJSONContent(r *http.Request) bool {
	return strings.HasPrefix(mediaType(r), "application/x-amz-json-")
}

func mediaType(r *http.Request) string {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return mt
}

// scopeService returns the service named by r's SigV4 credential scope
// (AKID/date/region/SERVICE/aws4_request), from the Authorization header
// or a presigned query, or "" when r carries none. It only routes: the
// Verifier checks the scope.
func scopeService(r *http.Request) string {
	cred := r.URL.Query().Get("X-Amz-Credential")
	if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, sigV4Algorithm) {
		for part := range strings.SplitSeq(strings.TrimPrefix(auth, sigV4Algorithm), ",") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(part), "Credential="); ok {
				cred = v
				break
			}
		}
	}
	parts := strings.Split(cred, "/")
	if len(parts) != 5 {
		return ""
	}
	return parts[3]
}

// queryForm returns the parameters of a Query request: those of the URL
// query followed by those of a form body. A body is read as a form unless
// it declares another content type, as some Query clients send none.
func queryForm(r *http.Request, body []byte) (url.Values, error) {
	form, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errMalformedQuery(err)
	}
	if len(body) == 0 {
		return form, checkSingleValues(form)
	}
	if mt := mediaType(r); mt != "" && mt != formContentType {
		return nil, errUnsupportedContentType(r.Header.Get("Content-Type"))
	}
	bodyForm, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, errMalformedQuery(err)
	}
	for k, vs := range bodyForm {
		form[k] = append(form[k], vs...)
	}
	return form, checkSingleValues(form)
}

// checkSingleValues rejects a parameter given more than once: no AWS
// client repeats one, and picking either value could act on something
// other than what the client meant.
func checkSingleValues(form url.Values) error {
	for k, vs := range form {
		if len(vs) > 1 {
			return errRepeatedParameter(k)
		}
	}
	return nil
}
