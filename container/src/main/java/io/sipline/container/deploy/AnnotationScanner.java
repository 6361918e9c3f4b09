package io.sipline.container.deploy;

import java.lang.classfile.AccessFlags;
import java.lang.classfile.Annotation;
import java.lang.classfile.AnnotationElement;
import java.lang.classfile.AnnotationValue;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.RuntimeVisibleAnnotationsAttribute;
import java.lang.reflect.AccessFlag;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the SIP Servlet annotations (JSR 289 §18: {@code @SipApplication} on a package, {@code @SipServlet},
 * {@code @SipListener} on classes, {@code @SipApplicationKey} on a method) in an application's class files without
 * loading a single class: each file is read with the JDK class-file API ({@link ClassFile#parse(byte[])}) and only
 * its {@code RuntimeVisibleAnnotations} attributes are looked at. Files whose bytes do not even mention the annotation
 * package are skipped before parsing, so large libraries cost one byte scan each.
 * <p>
 * Refused, with a {@link DeploymentException} naming the class: a malformed class file that mentions the
 * annotations, two {@code @SipApplication} packages, an abstract or interface {@code @SipServlet}, and a
 * {@code @SipApplicationKey} method that is not {@code public static String m(SipServletRequest)}.
 * <p>
 * Threading: stateless entry points; each scan owns its collector. Not for concurrent use of one collector.
 */
public final class AnnotationScanner
{
    private static final String ANNOTATION_PACKAGE = "javax/servlet/sip/annotation/";
    private static final byte[] MARKER = ANNOTATION_PACKAGE.getBytes(StandardCharsets.US_ASCII);
    private static final String SIP_APPLICATION = "Ljavax/servlet/sip/annotation/SipApplication;";
    private static final String SIP_SERVLET = "Ljavax/servlet/sip/annotation/SipServlet;";
    private static final String SIP_LISTENER = "Ljavax/servlet/sip/annotation/SipListener;";
    private static final String SIP_APPLICATION_KEY = "Ljavax/servlet/sip/annotation/SipApplicationKey;";
    private static final String KEY_DESCRIPTOR = "(Ljavax/servlet/sip/SipServletRequest;)Ljava/lang/String;";
    private static final String PACKAGE_INFO = "package-info";

    private AnnotationScanner()
    {
    }

    /**
     * @param archive the application.
     * @return what its {@code WEB-INF/classes} and {@code WEB-INF/lib/*.jar} declare.
     * @throws DeploymentException when a class cannot be read or the annotations contradict each other.
     */
    public static AnnotationScanResult scan(final ApplicationArchive archive) throws DeploymentException
    {
        final Collector collector = new Collector();
        archive.forEachClass(collector::accept);
        return collector.result();
    }

    /**
     * Accumulates annotations over a sequence of class files.
     * <p>
     * Threading: single-threaded.
     */
    static final class Collector
    {
        private AnnotationScanResult.ApplicationAnnotation application;
        private final List<AnnotationScanResult.AnnotatedServlet> servlets = new ArrayList<>();
        private final List<AnnotationScanResult.AnnotatedListener> listeners = new ArrayList<>();
        private final List<AnnotationScanResult.AnnotatedKey> keys = new ArrayList<>();

        /**
         * @param origin where the class file is, for messages.
         * @param bytes  the class file.
         * @throws DeploymentException when the class is malformed or its annotations are invalid.
         */
        void accept(final String origin, final byte[] bytes) throws DeploymentException
        {
            if (!mentions(bytes, MARKER))
            {
                return;
            }
            final ClassModel model;
            try
            {
                model = ClassFile.of().parse(bytes);
            }
            catch (final IllegalArgumentException | IndexOutOfBoundsException ex)
            {
                throw new DeploymentException(origin, DeploymentException.NO_LINE,
                    "not a valid class file: " + ex.getMessage(), ex);
            }
            try
            {
                inspect(origin, model);
            }
            catch (final IllegalArgumentException | IndexOutOfBoundsException ex)
            {
                // the class-file API parses lazily: a corrupt attribute surfaces here
                throw new DeploymentException(origin, DeploymentException.NO_LINE,
                    "malformed class file: " + ex.getMessage(), ex);
            }
        }

        AnnotationScanResult result()
        {
            return new AnnotationScanResult(application, servlets, listeners, keys);
        }

        private void inspect(final String origin, final ClassModel model) throws DeploymentException
        {
            final String internalName = model.thisClass().asInternalName();
            final String className = internalName.replace('/', '.');
            for (final Annotation annotation : annotations(model.findAttribute(Attributes.runtimeVisibleAnnotations())
                .orElse(null)))
            {
                final String type = annotation.className().stringValue();
                final Map<String, AnnotationValue> values = elements(annotation);
                switch (type)
                {
                    case SIP_APPLICATION -> application(origin, internalName, values);
                    case SIP_SERVLET -> servlet(origin, model, className, values);
                    case SIP_LISTENER -> listeners.add(new AnnotationScanResult.AnnotatedListener(
                        new ListenerDefinition(className, string(values, "description"), DescriptorOrigin.ANNOTATION,
                            origin, DeploymentException.NO_LINE),
                        string(values, "applicationName")));
                    default ->
                    {
                        // other annotations are not ours
                    }
                }
            }
            for (final MethodModel method : model.methods())
            {
                for (final Annotation annotation : annotations(
                    method.findAttribute(Attributes.runtimeVisibleAnnotations()).orElse(null)))
                {
                    if (SIP_APPLICATION_KEY.equals(annotation.className().stringValue()))
                    {
                        key(origin, className, method, elements(annotation));
                    }
                }
            }
        }

        private void application(final String origin, final String internalName,
            final Map<String, AnnotationValue> values) throws DeploymentException
        {
            if (!internalName.endsWith(PACKAGE_INFO))
            {
                throw new DeploymentException(origin, "@SipApplication belongs on a package (package-info.java)");
            }
            final int slash = internalName.lastIndexOf('/');
            final String packageName = slash < 0 ? "" : internalName.substring(0, slash).replace('/', '.');
            if (null != application)
            {
                throw new DeploymentException(origin, "second @SipApplication (package " + packageName
                    + "); the first is on package " + application.packageName() + " (" + application.origin()
                    + "); an archive holds one SIP application");
            }
            application = new AnnotationScanResult.ApplicationAnnotation(
                packageName, origin, string(values, "name"), string(values, "displayName"),
                string(values, "description"), string(values, "mainServlet"), integer(values, "sessionTimeout"),
                integer(values, "proxyTimeout"), bool(values, "distributable"));
        }

        private void servlet(final String origin, final ClassModel model, final String className,
            final Map<String, AnnotationValue> values) throws DeploymentException
        {
            final AccessFlags flags = model.flags();
            if (flags.has(AccessFlag.ABSTRACT) || flags.has(AccessFlag.INTERFACE))
            {
                throw new DeploymentException(origin, "@SipServlet class " + className + " is abstract");
            }
            String name = string(values, "name");
            if (null == name)
            {
                // JSR 289 §18.2.2: the servlet name defaults to the unqualified class name
                name = className.substring(Math.max(className.lastIndexOf('.'), className.lastIndexOf('$')) + 1);
            }
            final Integer loadOnStartup = integer(values, "loadOnStartup");
            final ServletDefinition definition = new ServletDefinition(
                name, className, null, string(values, "description"), Map.of(),
                null == loadOnStartup || loadOnStartup < 0 ? null : loadOnStartup, DescriptorOrigin.ANNOTATION,
                origin, DeploymentException.NO_LINE);
            servlets.add(new AnnotationScanResult.AnnotatedServlet(definition, string(values, "applicationName")));
        }

        private void key(final String origin, final String className, final MethodModel method,
            final Map<String, AnnotationValue> values) throws DeploymentException
        {
            final String methodName = method.methodName().stringValue();
            final AccessFlags flags = method.flags();
            if (!flags.has(AccessFlag.PUBLIC) || !flags.has(AccessFlag.STATIC)
                || !KEY_DESCRIPTOR.equals(method.methodType().stringValue()))
            {
                throw new DeploymentException(origin, "@SipApplicationKey method " + className + '.' + methodName
                    + " must be 'public static String " + methodName + "(SipServletRequest)' (JSR 289 §15.11.2)");
            }
            keys.add(new AnnotationScanResult.AnnotatedKey(
                new ApplicationKeyMethod(className, methodName), string(values, "applicationName"), origin));
        }

        private static List<Annotation> annotations(final RuntimeVisibleAnnotationsAttribute attribute)
        {
            return null == attribute ? List.of() : attribute.annotations();
        }

        private static Map<String, AnnotationValue> elements(final Annotation annotation)
        {
            final Map<String, AnnotationValue> values = new HashMap<>();
            for (final AnnotationElement element : annotation.elements())
            {
                values.put(element.name().stringValue(), element.value());
            }
            return values;
        }

        private static String string(final Map<String, AnnotationValue> values, final String name)
        {
            // an empty string is the annotations' "not given" default
            return values.get(name) instanceof AnnotationValue.OfString s && !s.stringValue().isEmpty()
                ? s.stringValue() : null;
        }

        private static Integer integer(final Map<String, AnnotationValue> values, final String name)
        {
            return values.get(name) instanceof AnnotationValue.OfInt i ? i.intValue() : null;
        }

        private static Boolean bool(final Map<String, AnnotationValue> values, final String name)
        {
            return values.get(name) instanceof AnnotationValue.OfBoolean b ? b.booleanValue() : null;
        }

        private static boolean mentions(final byte[] haystack, final byte[] needle)
        {
            final int last = haystack.length - needle.length;
            final byte first = needle[0];
            for (int i = 0; i <= last; i++)
            {
                if (haystack[i] != first)
                {
                    continue;
                }
                int j = 1;
                while (j < needle.length && haystack[i + j] == needle[j])
                {
                    j++;
                }
                if (j == needle.length)
                {
                    return true;
                }
            }
            return false;
        }
    }
}
