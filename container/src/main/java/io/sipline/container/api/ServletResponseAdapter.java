package io.sipline.container.api;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.Locale;

import javax.servlet.ServletOutputStream;
import javax.servlet.ServletResponse;

import io.sipline.sip.message.SipMessage;

/**
 * The {@link ServletResponse} methods a SIP response inherits from the Servlet API, answered in SIP terms: SIP is
 * not a streaming protocol (JSR 289 §5.7), so there is no output stream, writer or buffer, and the locale is
 * Content-Language's. Holds no state of its own; the response's API is in {@link SipServletResponseImpl}, the
 * ServletRequest side in {@link ServletRequestAdapter}.
 * <p>
 * Threading: see {@link SipServletMessageImpl}.
 */
abstract class ServletResponseAdapter extends SipServletMessageImpl implements ServletResponse
{
    /** A received response over one exact copy of its bytes. */
    ServletResponseAdapter(final SipMessage message, final byte[] bytes, final InetSocketAddress remote,
        final InetSocketAddress local)
    {
        super(message, bytes, remote, local);
    }

    /** A response the container builds. */
    ServletResponseAdapter(final MessageHeaders headers)
    {
        super(headers);
    }

    @Override
    public ServletOutputStream getOutputStream()
    {
        return null;
    }

    @Override
    public PrintWriter getWriter()
    {
        return null;
    }

    @Override
    public void setCharacterEncoding(final String charset)
    {
        if (!applyCharacterEncoding(charset))
        {
            throw new IllegalArgumentException("unsupported charset " + charset);
        }
    }

    @Override
    public void setContentLengthLong(final long len)
    {
        setContentLength((int)len);
    }

    @Override
    public void setBufferSize(final int size)
    {
        // no buffer: the response is written whole when sent
    }

    @Override
    public int getBufferSize()
    {
        return 0;
    }

    @Override
    public void flushBuffer()
    {
        // nothing buffered
    }

    @Override
    public void resetBuffer()
    {
        // nothing buffered
    }

    @Override
    public void reset()
    {
        checkWritable();
    }

    @Override
    public void setLocale(final Locale locale)
    {
        setContentLanguage(locale);
    }

    @Override
    public Locale getLocale()
    {
        return localeOrDefault(getContentLanguage());
    }
}
