package sns

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	"github.com/google/uuid"

	"github.com/heraldmq/herald"
)

// The SMS API of SNS: the account's SMS attributes, its list of numbers
// that opted out, its SMS sandbox numbers, and Publish to a PhoneNumber.
// All of it is an account's own (authorizeAccount), kept as account
// records (Store) of three kinds. Messages go to the SMS webhook
// (Config.SMS) through the delivery queue, like notifications.

// Kinds of account records.
const (
	recordSMSAttribute = "sms-attr"    // key: attribute name, value: its value
	recordSMSOptOut    = "sms-opt-out" // key: phone number, value: empty
	recordSMSSandbox   = "sms-sandbox" // key: phone number, value: sandboxRecord (JSON)
)

// SMS attributes (SetSMSAttributes), as AWS names them.
const (
	SMSAttrMonthlySpendLimit                 = "MonthlySpendLimit"
	SMSAttrDeliveryStatusIAMRole             = "DeliveryStatusIAMRole"
	SMSAttrDeliveryStatusSuccessSamplingRate = "DeliveryStatusSuccessSamplingRate"
	SMSAttrDefaultSenderID                   = "DefaultSenderID"
	SMSAttrDefaultSMSType                    = "DefaultSMSType"
	SMSAttrUsageReportS3Bucket               = "UsageReportS3Bucket"
)

// SMS types.
const (
	SMSTypePromotional   = "Promotional"
	SMSTypeTransactional = "Transactional"
)

// Verification states of a sandbox number.
const (
	SandboxPending  = "Pending"
	SandboxVerified = "Verified"
)

// More error codes of the SMS actions.
const (
	CodeOptedOut     = "OptedOut"
	CodeVerification = "VerificationException"
	CodeUserError    = "UserError"
)

// ListPhoneNumbersOptedOutOutput is a page of opted-out numbers.
type ListPhoneNumbersOptedOutOutput struct {
	PhoneNumbers []string
	NextToken    string
}

type CreateSMSSandboxPhoneNumberInput struct {
	PhoneNumber  string
	LanguageCode string // "" means en-US
}

type VerifySMSSandboxPhoneNumberInput struct {
	PhoneNumber     string
	OneTimePassword string
}

type ListSMSSandboxPhoneNumbersInput struct {
	NextToken  string
	MaxResults int // 0: 100
}

// SMSSandboxPhoneNumber is a sandbox number and its Status (Pending or
// Verified).
type SMSSandboxPhoneNumber struct {
	PhoneNumber string
	Status      string
}

type ListSMSSandboxPhoneNumbersOutput struct {
	PhoneNumbers []SMSSandboxPhoneNumber
	NextToken    string
}

// SMSAPI is the SMS half of the SNS API; *Service implements it.
type SMSAPI interface {
	SetSMSAttributes(ctx context.Context, c Caller, attributes map[string]string) error
	GetSMSAttributes(ctx context.Context, c Caller, names []string) (map[string]string, error)
	CheckIfPhoneNumberIsOptedOut(ctx context.Context, c Caller, phoneNumber string) (bool, error)
	ListPhoneNumbersOptedOut(ctx context.Context, c Caller, nextToken string) (ListPhoneNumbersOptedOutOutput, error)
	OptInPhoneNumber(ctx context.Context, c Caller, phoneNumber string) error
	CreateSMSSandboxPhoneNumber(ctx context.Context, c Caller, in CreateSMSSandboxPhoneNumberInput) error
	VerifySMSSandboxPhoneNumber(ctx context.Context, c Caller, in VerifySMSSandboxPhoneNumberInput) error
	DeleteSMSSandboxPhoneNumber(ctx context.Context, c Caller, phoneNumber string) error
	ListSMSSandboxPhoneNumbers(ctx context.Context, c Caller, in ListSMSSandboxPhoneNumbersInput) (ListSMSSandboxPhoneNumbersOutput, error)
	GetSMSSandboxAccountStatus(ctx context.Context, c Caller) (bool, error)
}

var _ SMSAPI = (*Service)(nil)

// checkSMSAttribute validates one SetSMSAttributes attribute.
func checkSMSAttribute(name, value string) *Error {
	bad := func(reason string) *Error {
		return ErrInvalidParameter("attributes Reason: %s: %s", name, reason)
	}
	switch name {
	case SMSAttrMonthlySpendLimit:
		if n, err := strconv.Atoi(value); err != nil || n < 0 {
			return bad("must be a whole number of USD, 0 or more")
		}
	case SMSAttrDeliveryStatusSuccessSamplingRate:
		if n, err := strconv.Atoi(value); err != nil || n < 0 || n > 100 {
			return bad("must be a whole percentage from 0 to 100")
		}
	case SMSAttrDefaultSenderID:
		if !validSenderID(value) {
			return bad("must be 1 to 11 letters and digits, at least one a letter")
		}
	case SMSAttrDefaultSMSType:
		if value != SMSTypePromotional && value != SMSTypeTransactional {
			return bad("must be Promotional or Transactional")
		}
	case SMSAttrDeliveryStatusIAMRole, SMSAttrUsageReportS3Bucket:
		if len(value) > 2048 {
			return bad("too long")
		}
	default:
		return ErrInvalidParameter("attributes Reason: %s is not an SMS attribute", herald.Clip(name))
	}
	return nil
}

// validSenderID: 1 to 11 ASCII letters and digits, at least one letter.
func validSenderID(s string) bool {
	if s == "" || len(s) > 11 {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}

// SetSMSAttributes stores the account's SMS settings, each attribute a
// record; an empty value removes the attribute. Every attribute is checked
// before any is stored.
func (s *Service) SetSMSAttributes(ctx context.Context, c Caller, attributes map[string]string) error {
	if e := authorizeAccount(c, "SetSMSAttributes"); e != nil {
		return e
	}
	for name, value := range attributes {
		if value == "" {
			continue
		}
		if e := checkSMSAttribute(name, value); e != nil {
			return e
		}
	}
	for name, value := range attributes {
		var err error
		if value == "" {
			if err = s.store.DeleteAccountRecord(ctx, c.Account, recordSMSAttribute, name); isCode(err, herald.ENotFound) {
				err = nil
			}
		} else {
			err = s.store.PutAccountRecord(ctx, c.Account, recordSMSAttribute, name, []byte(value))
		}
		if err != nil {
			return AsError(err)
		}
	}
	return nil
}

// smsAttributes reads all SMS attributes of account.
func (s *Service) smsAttributes(ctx context.Context, account string) (map[string]string, error) {
	recs, err := s.store.ListAccountRecords(ctx, account, recordSMSAttribute, "", 100)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(recs))
	for _, r := range recs {
		out[r.Key] = string(r.Value)
	}
	return out, nil
}

// GetSMSAttributes returns the account's SMS attributes that were set, all
// of them or those named.
func (s *Service) GetSMSAttributes(ctx context.Context, c Caller, names []string) (map[string]string, error) {
	if e := authorizeAccount(c, "GetSMSAttributes"); e != nil {
		return nil, e
	}
	all, err := s.smsAttributes(ctx, c.Account)
	if err != nil {
		return nil, AsError(err)
	}
	if len(names) == 0 {
		return all, nil
	}
	out := map[string]string{}
	for _, n := range names {
		if v, ok := all[n]; ok {
			out[n] = v
		}
	}
	return out, nil
}

// errPhoneNumber refuses a phoneNumber parameter that is not E.164.
func errPhoneNumber(param, number string) *Error {
	return ErrInvalidParameter("%s Reason: %s is not a phone number in E.164 format", param, herald.Clip(number))
}

// optedOut reports whether phone opted out of account's messages.
func (s *Service) optedOut(ctx context.Context, account, phone string) (bool, error) {
	_, err := s.store.GetAccountRecord(ctx, account, recordSMSOptOut, phone)
	switch {
	case err == nil:
		return true, nil
	case isCode(err, herald.ENotFound):
		return false, nil
	}
	return false, err
}

func (s *Service) CheckIfPhoneNumberIsOptedOut(ctx context.Context, c Caller, phone string) (bool, error) {
	if e := authorizeAccount(c, "CheckIfPhoneNumberIsOptedOut"); e != nil {
		return false, e
	}
	if !ValidPhoneNumber(phone) {
		return false, errPhoneNumber("phoneNumber", phone)
	}
	out, err := s.optedOut(ctx, c.Account, phone)
	return out, errOrNil(err)
}

// ListPhoneNumbersOptedOut lists the account's opted-out numbers in pages
// of 100, in byte order.
func (s *Service) ListPhoneNumbersOptedOut(ctx context.Context, c Caller, nextToken string) (ListPhoneNumbersOptedOutOutput, error) {
	var out ListPhoneNumbersOptedOutOutput
	if e := authorizeAccount(c, "ListPhoneNumbersOptedOut"); e != nil {
		return out, e
	}
	after := ""
	if nextToken != "" {
		var e *Error
		if after, e = parsePageToken(nextToken); e != nil {
			return out, e
		}
	}
	recs, err := s.store.ListAccountRecords(ctx, c.Account, recordSMSOptOut, after, MaxListPage+1)
	if err != nil {
		return out, AsError(err)
	}
	out.PhoneNumbers = []string{}
	for i, r := range recs {
		if i == MaxListPage {
			out.NextToken = pageToken(recs[i-1].Key)
			break
		}
		out.PhoneNumbers = append(out.PhoneNumbers, r.Key)
	}
	return out, nil
}

// OptInPhoneNumber removes a number from the account's opt-out list; a
// number that did not opt out is not an error.
func (s *Service) OptInPhoneNumber(ctx context.Context, c Caller, phone string) error {
	if e := authorizeAccount(c, "OptInPhoneNumber"); e != nil {
		return e
	}
	if !ValidPhoneNumber(phone) {
		return errPhoneNumber("phoneNumber", phone)
	}
	err := s.store.DeleteAccountRecord(ctx, c.Account, recordSMSOptOut, phone)
	if isCode(err, herald.ENotFound) {
		return nil
	}
	return errOrNil(err)
}

// OptOutPhoneNumber adds phone to account's opt-out list, as a recipient's
// STOP reply does on AWS. SNS has no action for it: Herald does it when the
// SMS webhook answers that the recipient opted out (deliverSMS); operators
// and tests may call it.
func (s *Service) OptOutPhoneNumber(ctx context.Context, account, phone string) error {
	if !ValidPhoneNumber(phone) {
		return errPhoneNumber("phoneNumber", phone)
	}
	return errOrNil(s.store.PutAccountRecord(ctx, account, recordSMSOptOut, phone, nil))
}

// sandboxRecord is a sandbox number's record.
type sandboxRecord struct {
	Status   string `json:"status"`
	OTP      string `json:"otp,omitempty"` // while Pending
	Language string `json:"lang,omitempty"`
	Created  int64  `json:"created"` // Unix ms
}

// sandboxLanguages are the LanguageCode values AWS accepts.
var sandboxLanguages = map[string]bool{
	"en-US": true, "en-GB": true, "es-419": true, "es-ES": true, "de-DE": true, "fr-CA": true, "fr-FR": true,
	"it-IT": true, "ja-JP": true, "pt-BR": true, "kr-KR": true, "zh-CN": true, "zh-TW": true,
}

func (s *Service) sandboxNumber(ctx context.Context, account, phone string) (*sandboxRecord, error) {
	return getJSONRecord[sandboxRecord](ctx, s.store, account, recordSMSSandbox, phone, "sandbox number "+phone)
}

func (s *Service) putSandboxNumber(ctx context.Context, account, phone string, r *sandboxRecord) error {
	return putJSONRecord(ctx, s.store, account, recordSMSSandbox, phone, r)
}

func errSandboxNotFound() *Error {
	return NewError(CodeResourceNotFound, "Phone number does not exist in the SMS sandbox of this account")
}

// newOTP is a random 6-digit one-time password.
func newOTP() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return fmt.Sprintf("%06d", n.Int64())
}

// CreateSMSSandboxPhoneNumber adds a number to the account's sandbox list,
// Pending, and sends it a one-time password by SMS (through the webhook,
// when one is configured). A pending number gets a new password; a
// verified one stays verified and gets none.
func (s *Service) CreateSMSSandboxPhoneNumber(ctx context.Context, c Caller, in CreateSMSSandboxPhoneNumberInput) error {
	if e := authorizeAccount(c, "CreateSMSSandboxPhoneNumber"); e != nil {
		return e
	}
	if !ValidPhoneNumber(in.PhoneNumber) {
		return errPhoneNumber("PhoneNumber", in.PhoneNumber)
	}
	lang := in.LanguageCode
	if lang == "" {
		lang = "en-US"
	}
	if !sandboxLanguages[lang] {
		return ErrInvalidParameter("LanguageCode")
	}
	if out, err := s.optedOut(ctx, c.Account, in.PhoneNumber); err != nil {
		return AsError(err)
	} else if out {
		return NewError(CodeOptedOut, "Phone number is opted out")
	}
	old, err := s.sandboxNumber(ctx, c.Account, in.PhoneNumber)
	switch {
	case err == nil && old.Status == SandboxVerified:
		return nil
	case err != nil && !isCode(err, herald.ENotFound):
		return AsError(err)
	}
	r := &sandboxRecord{Status: SandboxPending, OTP: newOTP(), Language: lang, Created: s.now().UnixMilli()}
	if err := s.putSandboxNumber(ctx, c.Account, in.PhoneNumber, r); err != nil {
		return AsError(err)
	}
	if s.cfg.SMS == nil {
		return nil
	}
	_, err = s.enqueueSMS(ctx, c, in.PhoneNumber, "Your Amazon SNS verification code is: "+r.OTP,
		map[string]MessageAttributeValue{AttrSMSType: {DataType: "String", StringValue: SMSTypeTransactional}})
	return errOrNil(err)
}

// VerifySMSSandboxPhoneNumber verifies a pending number with the password
// CreateSMSSandboxPhoneNumber sent it.
func (s *Service) VerifySMSSandboxPhoneNumber(ctx context.Context, c Caller, in VerifySMSSandboxPhoneNumberInput) error {
	if e := authorizeAccount(c, "VerifySMSSandboxPhoneNumber"); e != nil {
		return e
	}
	if !ValidPhoneNumber(in.PhoneNumber) {
		return errPhoneNumber("PhoneNumber", in.PhoneNumber)
	}
	if n := len(in.OneTimePassword); n < 5 || n > 8 || !allDigits(in.OneTimePassword) {
		return ErrInvalidParameter("OneTimePassword")
	}
	r, err := s.sandboxNumber(ctx, c.Account, in.PhoneNumber)
	if isCode(err, herald.ENotFound) {
		return errSandboxNotFound()
	}
	if err != nil {
		return AsError(err)
	}
	if r.Status == SandboxVerified {
		return nil
	}
	if r.OTP == "" || in.OneTimePassword != r.OTP {
		return NewError(CodeVerification, "Invalid one-time password")
	}
	r.Status, r.OTP = SandboxVerified, ""
	return errOrNil(s.putSandboxNumber(ctx, c.Account, in.PhoneNumber, r))
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (s *Service) DeleteSMSSandboxPhoneNumber(ctx context.Context, c Caller, phone string) error {
	if e := authorizeAccount(c, "DeleteSMSSandboxPhoneNumber"); e != nil {
		return e
	}
	if !ValidPhoneNumber(phone) {
		return errPhoneNumber("PhoneNumber", phone)
	}
	err := s.store.DeleteAccountRecord(ctx, c.Account, recordSMSSandbox, phone)
	if isCode(err, herald.ENotFound) {
		return errSandboxNotFound()
	}
	return errOrNil(err)
}

// ListSMSSandboxPhoneNumbers lists the account's sandbox numbers in byte
// order, MaxResults (1 to 100, default 100) a page.
func (s *Service) ListSMSSandboxPhoneNumbers(ctx context.Context, c Caller, in ListSMSSandboxPhoneNumbersInput) (ListSMSSandboxPhoneNumbersOutput, error) {
	out := ListSMSSandboxPhoneNumbersOutput{PhoneNumbers: []SMSSandboxPhoneNumber{}}
	if e := authorizeAccount(c, "ListSMSSandboxPhoneNumbers"); e != nil {
		return out, e
	}
	limit := in.MaxResults
	switch {
	case limit == 0:
		limit = MaxListPage
	case limit < 1 || limit > MaxListPage:
		return out, ErrInvalidParameter("MaxResults")
	}
	after := ""
	if in.NextToken != "" {
		var e *Error
		if after, e = parsePageToken(in.NextToken); e != nil {
			return out, e
		}
	}
	recs, err := s.store.ListAccountRecords(ctx, c.Account, recordSMSSandbox, after, limit+1)
	if err != nil {
		return out, AsError(err)
	}
	for i, rec := range recs {
		if i == limit {
			out.NextToken = pageToken(recs[i-1].Key)
			break
		}
		var r sandboxRecord
		if err := json.Unmarshal(rec.Value, &r); err != nil {
			return out, AsError(fmt.Errorf("sandbox number %s: %w", rec.Key, err))
		}
		out.PhoneNumbers = append(out.PhoneNumbers, SMSSandboxPhoneNumber{PhoneNumber: rec.Key, Status: r.Status})
	}
	return out, nil
}

// GetSMSSandboxAccountStatus answers false: no Herald account is in the
// SMS sandbox (docs/sns.md).
func (s *Service) GetSMSSandboxAccountStatus(ctx context.Context, c Caller) (bool, error) {
	if e := authorizeAccount(c, "GetSMSSandboxAccountStatus"); e != nil {
		return false, e
	}
	return false, nil
}

// publishSMS publishes one message to a phone number: checked as a
// topic's message would be, then queued as a delivery job of one sms
// "subscription" of the caller's account.
func (s *Service) publishSMS(ctx context.Context, c Caller, in PublishInput) (PublishOutput, error) {
	if e := authorizeAccount(c, "Publish"); e != nil {
		return PublishOutput{}, e
	}
	if !ValidPhoneNumber(in.PhoneNumber) {
		return PublishOutput{}, ErrInvalidParameter("PhoneNumber Reason: %s is not valid to publish to", herald.Clip(in.PhoneNumber))
	}
	entry := PublishBatchEntry{Message: in.Message, Subject: in.Subject, MessageStructure: in.MessageStructure,
		MessageAttributes: in.MessageAttributes, MessageDeduplicationID: in.MessageDeduplicationID, MessageGroupID: in.MessageGroupID}
	if e := validatePublish(&Topic{}, entry); e != nil {
		return PublishOutput{}, e
	}
	msg := in.Message
	if in.MessageStructure == "json" {
		m, _ := parseStructure(msg) // validatePublish parsed it
		if v, ok := m[ProtocolSMS]; ok {
			msg = v
		} else {
			msg = m["default"]
		}
	}
	id, err := s.enqueueSMS(ctx, c, in.PhoneNumber, msg, in.MessageAttributes)
	if err != nil {
		return PublishOutput{}, queueError(err)
	}
	return PublishOutput{MessageID: id}, nil
}

// enqueueSMS queues one SMS from c's account to phone on the delivery
// queue and returns its MessageId.
func (s *Service) enqueueSMS(ctx context.Context, c Caller, phone, message string, attrs map[string]MessageAttributeValue) (string, error) {
	id := uuid.NewString()
	dj := &deliveryJob{
		Pub: publishJob{Account: c.Account, Message: message, Attributes: attrs, Timestamp: s.now().UnixMilli(),
			Scheme: c.Scheme, Host: c.Host, MessageID: id},
		Subs: []jobSub{{Protocol: ProtocolSMS, Endpoint: phone}},
	}
	return id, s.enqueueDelivery(ctx, dj, 0)
}
