package smtptest

import "mime"

// mimeDecoder decodes RFC 2047 encoded words (=?utf-8?q?...?=).
type mimeDecoder struct{ d mime.WordDecoder }

func (m *mimeDecoder) decode(s string) string {
	out, err := m.d.DecodeHeader(s)
	if err != nil {
		return s
	}
	return out
}
