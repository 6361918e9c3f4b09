package io.sipline.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against a Sipline container started in-process on a free loopback port before its first test
 * and stopped after its last, with the applications named here deployed (paths relative to the working directory,
 * the module's directory under Maven). Test methods, constructors and {@code @BeforeAll} methods receive a
 * {@link SiplineServer} and any number of {@link UserAgent}s (each named after its parameter, on its own port,
 * closed after the method; out-of-dialog requests go to the container).
 * <pre>{@code
 * @SiplineTest(classes = "target/classes", dar = "src/test/resources/dar.properties")
 * class HelloTest { @Test void answers(SiplineServer sipline, UserAgent alice) { ... } }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(SiplineExtension.class)
public @interface SiplineTest
{
    /** WAR files or exploded application directories to deploy, e.g. {@code target/registrar.war}. */
    String[] war() default {};

    /**
     * A directory of compiled application classes to deploy, e.g. {@code target/classes}, with the files of
     * {@link #webapp()} ({@code WEB-INF/sip.xml}); empty for none.
     */
    String classes() default "";

    /** The web application directory that goes with {@link #classes()}; may be absent for annotated servlets. */
    String webapp() default "src/main/webapp";

    /** The default application router's configuration (JSR 289 Appendix C), e.g. {@code src/test/dar.properties}. */
    String dar() default "";

    /** Shards (event-loop threads) of the container. */
    int shards() default 1;

    /**
     * Serve the web halves of converged applications (JSR 289 §13: {@code web.xml}, {@code @WebServlet}) on a free
     * loopback TCP port, each at {@code /<WAR name>}; {@link SiplineServer#httpUri} gives the address.
     */
    boolean http() default false;
}
