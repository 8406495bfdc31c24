package awsapi

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/awsauth"
	"github.com/heraldmq/herald/internal/reqscheme"
	"github.com/heraldmq/herald/sns"
	"github.com/heraldmq/herald/sqs"
)

// DefaultAccount is the account requests act in when no access key maps
// them to another one.
const DefaultAccount = "000000000000"

// DefaultMaxBodyBytes bounds request bodies. A SendMessageBatch may carry
// 1 MiB of bodies and attributes; form encoding can triple every byte
// (%XX) and base64 adds a third to binary attributes, so 5 MiB leaves room
// for the worst legal request and its envelope.
const DefaultMaxBodyBytes = 5 << 20

// Config configures the AWS edge.
type Config struct {
	SQS sqs.API
	// SNS answers Query requests signed for "sns" or naming one of its
	// actions. Nil until Herald serves SNS.
	SNS QueryService
	// Verifier checks SigV4 signatures; nil or disabled turns checking off.
	Verifier *awsauth.Verifier
	// Regions are the regions requests are served for: while signatures
	// are checked, a credential scope naming any other region is refused
	// (SignatureDoesNotMatch, "Credential should be scoped to a valid
	// region."). Empty (or only empty strings) accepts every region.
	Regions []string
	// KeyAccounts maps access key ids to the account their requests act
	// in; keys not listed act in DefaultAccount.
	KeyAccounts map[string]string
	// Exhausted, when set, is asked before a signature is checked whether
	// the account a request's access key names has no request left at the
	// service's door (limits.Limiter.Exhausted: "sqs", "sns"); such a
	// request is refused with the service's throttling error unverified.
	// The services' own check stays the authoritative one: a forged
	// request can be refused this way, never admitted, and it takes
	// nothing from the account.
	Exhausted func(account, door string) bool
	// DefaultAccount is the account of unsigned requests and unmapped keys;
	// empty means DefaultAccount.
	DefaultAccount string
	// MaxBodyBytes bounds request bodies; <= 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	Logger       *slog.Logger // nil discards
	// Observe, when set, is told of every answered request: the service
	// ("sqs" or "sns"), the action ("unknown" for names the service does
	// not have, so that labels stay bounded), the HTTP status and the time
	// taken.
	Observe func(service, action string, status int, elapsed time.Duration)
}

// QueryService is one AWS service answering the Query protocol behind the
// edge. SQS is one; SNS will be another.
type QueryService interface {
	// SigningName is the service of the SigV4 credential scope ("sns").
	SigningName() string
	// HasAction reports whether action is one of the service's actions;
	// unsigned requests are routed by it.
	HasAction(action string) bool
	// ServeQuery answers a request whose signature has been checked.
	ServeQuery(w http.ResponseWriter, c *Call)
	// WriteQueryError answers c with err in the service's error shape. err
	// may be an *awsauth.Error or an edge error (body too large, malformed
	// form); the service maps it to its own codes.
	WriteQueryError(w http.ResponseWriter, c *Call, err error)
}

// AnonymousActions is implemented by a QueryService some of whose actions
// AWS answers without a signature even when signatures are checked (SNS's
// ConfirmSubscription and Unsubscribe, reached by following the URLs SNS
// sends). An unsigned request for such an action is served with an empty
// Call.Account and Call.SenderID; a request with a bad signature is still
// refused.
type AnonymousActions interface {
	AllowsAnonymous(action string) bool
}

// Call is one AWS request as the edge has read and authenticated it.
type Call struct {
	RequestID string
	Request   *http.Request
	Body      []byte
	Form      url.Values // Query protocol: the URL query and form body merged
	Action    string
	// Identity is who signed the request: verified when authentication is
	// on, read from the credential scope (unverified) otherwise.
	Identity awsauth.Identity
	Account  string // the account the request acts in; "" when anonymous (see AnonymousActions)
	SenderID string // the access key when authenticated, else the account; "" when anonymous
	Scheme   string // "http" or "https", as the client reached Herald
	Host     string // the Host the client used
}

// region is the region c acts in: the one its Host names (an endpoint such
// as sqs.eu-west-1.localhost), else its signature's credential scope; ""
// (the home region) for an unsigned request.
func (c *Call) region() string {
	if r := sqs.RegionOfHost(c.Host); r != "" {
		return r
	}
	return c.Identity.Region
}

// Handler is the AWS edge; see the package documentation.
type Handler struct {
	cfg     Config
	sqs     *sqsService
	log     *slog.Logger
	account string
	limit   int64
	regions map[string]bool // nil: every region
}

// New returns the AWS edge for cfg.
func New(cfg Config) *Handler {
	h := &Handler{cfg: cfg, log: cfg.Logger, account: cfg.DefaultAccount, limit: cfg.MaxBodyBytes}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.account == "" {
		h.account = DefaultAccount
	}
	if h.limit <= 0 {
		h.limit = DefaultMaxBodyBytes
	}
	for _, r := range cfg.Regions {
		if r == "" {
			continue
		}
		if h.regions == nil {
			h.regions = make(map[string]bool, len(cfg.Regions))
		}
		h.regions[r] = true
	}
	h.sqs = &sqsService{api: cfg.SQS, log: h.log}
	return h
}

// ServeHTTP authenticates an AWS request and hands it to its service.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	c := &Call{RequestID: uuid.NewString(), Request: r}
	// Set by its canonical key, which Header.Set would work out (and
	// allocate) on every request.
	w.Header()["X-Amzn-Requestid"] = []string{c.RequestID}
	rw := &doneWriter{ResponseWriter: w}
	if h.cfg.Observe != nil {
		defer h.observe(rw, c, start) // runs after recoverPanic has answered
	}
	defer h.recoverPanic(rw, c)

	if isJSONRequest(r) {
		// The JSON decoder copies every value it keeps, so the body's
		// buffer can serve the next request once this one is answered.
		buf := bodyBuffers.Get().(*bytes.Buffer)
		defer releaseBodyBuffer(buf)
		h.serveJSON(rw, c, r.Header.Get(headerTarget), buf)
		return
	}
	h.serveQuery(rw, c)
}

// serveJSON routes an AWS JSON 1.0 request by its X-Amz-Target.
func (h *Handler) serveJSON(w http.ResponseWriter, c *Call, target string, buf *bytes.Buffer) {
	if err := h.readBody(c, buf); err != nil {
		h.sqs.writeJSONError(w, c, err)
		return
	}
	action, ok := strings.CutPrefix(target, sqsTargetPrefix)
	if !ok || action == "" {
		h.sqs.writeJSONError(w, c, sqs.ErrUnknownOperation(herald.Clip(target)))
		return
	}
	c.Action = action
	if err := h.authenticate(c, sqsSigningName); err != nil {
		h.sqs.writeJSONError(w, c, err)
		return
	}
	h.sqs.serveJSON(w, c)
}

// serveQuery routes a Query request to its service.
func (h *Handler) serveQuery(w http.ResponseWriter, c *Call) {
	// Until the form is read, only the credential scope names a service.
	if err := h.readBody(c, new(bytes.Buffer)); err != nil {
		h.queryService(c).WriteQueryError(w, c, err)
		return
	}
	form, err := queryForm(c.Request, c.Body)
	if err != nil {
		h.queryService(c).WriteQueryError(w, c, err)
		return
	}
	c.Form = form
	c.Action = form.Get("Action")
	svc := h.queryService(c)
	if err := h.authenticate(c, svc.SigningName()); err != nil {
		if !allowsAnonymous(svc, c.Action, err) {
			svc.WriteQueryError(w, c, err)
			return
		}
		c.Identity, c.Account, c.SenderID = awsauth.Identity{}, "", ""
		c.Scheme, c.Host = reqscheme.Of(c.Request), c.Request.Host
	}
	if c.Action == "" {
		svc.WriteQueryError(w, c, errMissingAction())
		return
	}
	svc.ServeQuery(w, c)
}

// queryService picks the service of a Query request: the one its
// credential scope names when signed, else the one knowing its action.
// SQS is the default, so that errors have a shape even for nonsense.
func (h *Handler) queryService(c *Call) QueryService {
	services := []QueryService{h.sqs}
	if h.cfg.SNS != nil {
		services = append(services, h.cfg.SNS)
	}
	if scope := scopeService(c.Request); scope != "" {
		for _, s := range services {
			if s.SigningName() == scope {
				return s
			}
		}
		return h.sqs // authenticate reports the scope mismatch
	}
	for _, s := range services {
		if s.HasAction(c.Action) {
			return s
		}
	}
	return h.sqs
}

// allowsAnonymous reports whether svc answers action although the request
// failed authentication only for carrying no signature at all.
func allowsAnonymous(svc QueryService, action string, err error) bool {
	var authErr *awsauth.Error
	if !errors.As(err, &authErr) || authErr.Code != awsauth.CodeMissingAuthenticationToken {
		return false
	}
	a, ok := svc.(AnonymousActions)
	return ok && a.AllowsAnonymous(action)
}

// readBody reads the request body into buf and c, at most h.limit bytes.
// A declared length sizes buf at once rather than by doubling.
func (h *Handler) readBody(c *Call, buf *bytes.Buffer) error {
	r := c.Request
	if r.ContentLength > h.limit {
		return errBodyTooLarge(h.limit)
	}
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength) + bytes.MinRead) // MinRead: room to see EOF
	}
	if r.Body != nil {
		if _, err := buf.ReadFrom(&io.LimitedReader{R: r.Body, N: h.limit + 1}); err != nil {
			return errUnreadableBody(err)
		}
	}
	if int64(buf.Len()) > h.limit {
		return errBodyTooLarge(h.limit)
	}
	c.Body = buf.Bytes()
	return nil
}

// bodyBuffers holds the body buffers of JSON requests.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// releaseBodyBuffer pools buf unless a large request grew it; those are
// left to the collector rather than pinned.
func releaseBodyBuffer(buf *bytes.Buffer) {
	if buf.Cap() > maxPooledBuffer {
		return
	}
	buf.Reset()
	bodyBuffers.Put(buf)
}

// authenticate checks c's signature and fills in who is calling and how.
// service is the signing name the request must be scoped to.
func (h *Handler) authenticate(c *Call, service string) error {
	if err := h.refuseExhausted(c, service); err != nil {
		return err
	}
	id, err := h.cfg.Verifier.Verify(c.Request, c.Body)
	if err != nil {
		return err
	}
	c.Identity = id
	c.Account, c.SenderID = h.account, h.account
	if h.cfg.Verifier.Enabled() {
		if h.regions != nil && !h.regions[id.Region] {
			return errInvalidRegion()
		}
		if id.Service != service {
			return &awsauth.Error{Code: awsauth.CodeSignatureDoesNotMatch, Status: http.StatusForbidden,
				Message: "Credential should be scoped to correct service: '" + service + "'."}
		}
		if acct, ok := h.cfg.KeyAccounts[id.AccessKey]; ok && acct != "" {
			c.Account = acct
		}
		c.SenderID = id.AccessKey
	}
	c.Scheme = reqscheme.Of(c.Request)
	c.Host = c.Request.Host
	return nil
}

// recoverPanic answers a panicking request with InternalFailure in the
// protocol's shape, so that SDKs see an AWS error rather than a broken
// connection or Herald's own JSON.
func (h *Handler) recoverPanic(w *doneWriter, c *Call) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p)
	}
	h.log.Error("aws handler panic", "action", c.Action, "path", c.Request.URL.Path, "panic", p)
	if w.done {
		return
	}
	err := sqs.ErrInternal(errors.New("panic"))
	if isJSONRequest(c.Request) {
		h.sqs.writeJSONError(w, c, err)
		return
	}
	h.queryService(c).WriteQueryError(w, c, err)
}

// observe reports the answered request c to Config.Observe.
func (h *Handler) observe(w *doneWriter, c *Call, start time.Time) {
	var svc QueryService = h.sqs
	if !isJSONRequest(c.Request) {
		svc = h.queryService(c)
	}
	action := c.Action
	if !svc.HasAction(action) {
		action = "unknown"
	}
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	h.cfg.Observe(svc.SigningName(), action, status, time.Since(start))
}

// doneWriter remembers whether a response has begun, and its status.
type doneWriter struct {
	http.ResponseWriter
	done   bool
	status int
}

func (w *doneWriter) WriteHeader(code int) {
	if !w.done {
		w.status = code
	}
	w.done = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *doneWriter) Write(b []byte) (int, error) {
	if !w.done {
		w.status = http.StatusOK
	}
	w.done = true
	return w.ResponseWriter.Write(b)
}

func (w *doneWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// refuseExhausted refuses, before its signature is checked, a request whose
// access key's account has no request left at service (Config.Exhausted):
// a flooding account's refusals then cost no signature check.
func (h *Handler) refuseExhausted(c *Call, service string) error {
	if h.cfg.Exhausted == nil || !h.cfg.Verifier.Enabled() {
		return nil
	}
	key := accessKeyOf(c.Request.Header.Get("Authorization"))
	if key == "" {
		return nil
	}
	account := h.account
	if a, ok := h.cfg.KeyAccounts[key]; ok && a != "" {
		account = a
	}
	if !h.cfg.Exhausted(account, service) {
		return nil
	}
	const msg = "rate exceeded: account %s has no request left at %s; retry after a short wait"
	if service == sqsSigningName {
		return sqs.NewError(sqs.CodeRequestThrottled, msg, herald.Clip(account), service)
	}
	return sns.NewError(sns.CodeThrottled, msg, herald.Clip(account), service)
}

// accessKeyOf is the access key id an Authorization header names, "" when
// it names none (the signature check then says what is wrong).
func accessKeyOf(authz string) string {
	_, rest, ok := strings.Cut(authz, "Credential=")
	if !ok {
		return ""
	}
	key, _, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	return key
}
