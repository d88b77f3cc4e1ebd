/*
 * cxarena's host for course Java bots: speaks the cxarena line protocol v1 (docs/protocol.md)
 * on stdin/stdout on behalf of a class implementing connectx.CXPlayer.
 *
 *   java -cp API:BOT cxarena.Host CLASS           play (the referee starts this)
 *   java -cp API:BOT cxarena.Host --check CLASS   load and instantiate CLASS, print why not
 *
 * Per game: a new instance, options set on its fields, the system property cxarena.seed set
 * to the game's seed, initPlayer; on each turn selectColumn on a copy of the host's board. The
 * previous game's player gets Exit(board) when the next game (or quit) arrives. The bot's
 * System.out goes to stderr (the log); the protocol uses a private copy of the real stdout.
 * An exception of the bot: its stack trace goes to stderr, the host answers "error TEXT" and
 * exits with status 1.
 */
package cxarena;

import connectx.CXBoard;
import connectx.CXPlayer;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Host {
    static final int PROTOCOL_VERSION = 1;
    /** The option that holds the JVM's own options: read by cxarena, not set on the bot. */
    static final String JVM_OPTIONS_KEY = "jvm_options";
    static final int MAX_NAME = 100;
    static final int MAX_ERROR = 1000;

    private final String className;
    private final InputStream in;
    private final OutputStream out;
    private Constructor<? extends CXPlayer> constructor;
    private CXPlayer player;
    private CXBoard board;

    private Host(String className, InputStream in, OutputStream out) {
        this.className = className;
        this.in = in;
        this.out = out;
    }

    // ------------------------------------------------------------------------ I/O
    private void send(String line) {
        byte[] data = (line + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            out.write(data); // one write: one packet on the referee's socket
            out.flush();
        } catch (IOException e) {
            Runtime.getRuntime().halt(0); // the referee went away
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(64);
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            buf.write(c);
        }
        if (c == -1 && buf.size() == 0) {
            return null;
        }
        String line = buf.toString(StandardCharsets.US_ASCII);
        return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }

    static String oneLine(String text, int limit) {
        String s = text == null ? "" : text.replace('\r', ' ').replace('\n', ' ');
        return s.length() > limit ? s.substring(0, limit) : s;
    }

    private static void flushStd() {
        System.out.flush();
        System.err.flush();
    }

    /** Reports a failure (of the bot, or of loading it) and ends the process with status 1. */
    private void fail(String where, Throwable t) {
        String prefix = where.isEmpty() ? "" : where + " ";
        String text;
        if (t instanceof OutOfMemoryError) {
            player = null; // let the bot's allocations go first
            text = prefix + "out of memory (" + t + ")";
        } else {
            text = prefix + "raised " + t;
        }
        try {
            trimHostFrames(t);
            t.printStackTrace();
        } catch (Throwable ignored) {
            // printing may fail too (out of memory)
        }
        flushStd();
        send("error " + oneLine(text, MAX_ERROR));
        Runtime.getRuntime().halt(1);
    }

    /** Drops the host's own frames (and reflection's) from the bottom of t's stack trace, so
     * that the trace, and the tail of the log a game record keeps, ends in the bot's code. */
    static void trimHostFrames(Throwable t) {
        StackTraceElement[] st = t.getStackTrace();
        int n = st.length;
        while (n > 1 && isHostFrame(st[n - 1].getClassName())) {
            n--;
        }
        if (n > 0 && n < st.length && !isHostFrame(st[n - 1].getClassName())) {
            t.setStackTrace(java.util.Arrays.copyOf(st, n));
        }
    }

    private static boolean isHostFrame(String cls) {
        return cls.startsWith("cxarena.") || cls.startsWith("jdk.internal.reflect.")
                || cls.startsWith("java.lang.reflect.");
    }

    private void failWith(String text) {
        System.err.println("cxarena host: " + text);
        flushStd();
        send("error " + oneLine(text, MAX_ERROR));
        Runtime.getRuntime().halt(1);
    }

    // ------------------------------------------------------------------- loading
    /** The bot's constructor; throws with a one-line message if CLASS is not a usable bot. */
    static Constructor<? extends CXPlayer> load(String className) throws Throwable {
        Class<?> cls;
        try {
            cls = Class.forName(className, true, Host.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("class " + className + " is not on the class path");
        } catch (ExceptionInInitializerError e) {
            throw e.getCause() != null ? e.getCause() : e;
        }
        if (!CXPlayer.class.isAssignableFrom(cls)) {
            throw new IllegalArgumentException("class " + className
                    + " does not implement connectx.CXPlayer");
        }
        if (cls.isInterface() || Modifier.isAbstract(cls.getModifiers())) {
            throw new IllegalArgumentException("class " + className + " is abstract");
        }
        Constructor<? extends CXPlayer> ctor;
        try {
            ctor = cls.asSubclass(CXPlayer.class).getDeclaredConstructor();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("class " + className
                    + " has no constructor without arguments");
        }
        ctor.setAccessible(true);
        return ctor;
    }

    static CXPlayer instantiate(Constructor<? extends CXPlayer> ctor) throws Throwable {
        try {
            return ctor.newInstance();
        } catch (InvocationTargetException e) {
            throw e.getCause() != null ? e.getCause() : e;
        }
    }

    /** Loads the classes every game uses, so that their loading is part of the start-up. */
    private static void warmUp() {
        CXBoard b = new CXBoard(6, 7, 4);
        for (int j = 0; j < 7; j++) {
            b.markColumn(j % 2);
        }
        CXBoard c = b.copy();
        c.getAvailableColumns();
        c.getMarkedCells();
        c.getBoard();
        c.getLastMove();
        c.unmarkColumn();
        c.cellState(0, 0);
        new JsonReader("{\"a\":[1,2.5,\"x\",true,null]}").value();
    }

    // ------------------------------------------------------------------ messages
    private void hello(String[] f) {
        if (f.length < 2 || !f[1].equals(String.valueOf(PROTOCOL_VERSION))) {
            failWith("unsupported protocol version " + (f.length < 2 ? "(none)" : f[1]));
        }
        try {
            constructor = load(className);
        } catch (Throwable t) {
            if (t instanceof IllegalArgumentException) {
                failWith("cannot load bot " + className + ": " + t.getMessage());
            }
            fail("cannot load bot " + className + ":", t);
        }
        warmUp();
        send("ready " + PROTOCOL_VERSION);
    }

    private void exitPlayer() {
        CXPlayer p = player;
        player = null;
        if (p != null && board != null) {
            try {
                p.Exit(board.copy());
            } catch (Throwable t) { // the game is over: a failing Exit costs nothing
                t.printStackTrace();
            }
        }
    }

    private void newGame(String[] f) {
        if (constructor == null) {
            failWith("newgame before hello");
        }
        if (f.length < 7) {
            failWith("host: malformed newgame line");
        }
        exitPlayer();
        int M;
        int N;
        int K;
        boolean first;
        double timeout;
        try {
            M = Integer.parseInt(f[1]);
            N = Integer.parseInt(f[2]);
            K = Integer.parseInt(f[3]);
            first = f[4].equals("1");
            timeout = Double.parseDouble(f[5]);
        } catch (NumberFormatException e) {
            failWith("host: malformed newgame line: " + e.getMessage());
            return;
        }
        if (!(timeout >= 1) || timeout != Math.floor(timeout) || timeout > Integer.MAX_VALUE) {
            failWith("the course API's timeout_in_secs is an int, and this run's time limit of "
                    + f[5] + " s is not a whole number of seconds (at least 1): run Java bots "
                    + "with a limit of 1, 2, ... s");
        }
        Map<String, Object> options;
        try {
            Object o = new JsonReader(f.length > 7 ? f[7] : "{}").document();
            if (!(o instanceof Map)) {
                throw new IllegalArgumentException("not a JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) o;
            options = m;
        } catch (IllegalArgumentException e) {
            failWith("host: bad options in newgame: " + e.getMessage());
            return;
        }
        board = new CXBoard(M, N, K);
        System.setProperty("cxarena.seed", f[6]);
        CXPlayer p = null;
        try {
            p = instantiate(constructor);
            for (Map.Entry<String, Object> e : options.entrySet()) {
                if (!e.getKey().equals(JVM_OPTIONS_KEY)) {
                    setOption(p, e.getKey(), e.getValue());
                }
            }
            p.initPlayer(M, N, K, first, (int) timeout);
        } catch (OptionError e) {
            failWith(e.getMessage());
        } catch (Throwable t) {
            fail("", t);
        }
        String name;
        try {
            name = String.valueOf(p.playerName());
        } catch (Throwable t) { // a failing playerName costs the name, not the game
            t.printStackTrace();
            name = "";
        }
        player = p;
        send("ok " + oneLine(name, MAX_NAME));
    }

    private void opponent(String[] f) {
        if (board == null || f.length < 2) {
            failWith("opponent move outside a game");
        }
        try {
            board.markColumn(Integer.parseInt(f[1]));
        } catch (Throwable t) {
            fail("host: applying the opponent's move", t);
        }
    }

    private void go() {
        if (player == null || board == null) {
            failWith("go outside a game");
        }
        int col = 0;
        try {
            col = player.selectColumn(board.copy());
        } catch (Throwable t) {
            fail("", t);
        }
        send("play " + col);
        try { // keep our board in step; an illegal answer ends the game anyway
            board.markColumn(col);
        } catch (RuntimeException ignored) {
            // the referee reports it
        }
    }

    private int run() throws IOException {
        while (true) {
            String line = readLine();
            if (line == null) {
                return 0; // the referee went away
            }
            String[] f = line.split(" ", 8);
            switch (f[0]) {
                case "go":
                    go();
                    break;
                case "opponent":
                    opponent(f);
                    break;
                case "newgame":
                    newGame(f);
                    break;
                case "hello":
                    hello(f);
                    break;
                case "quit":
                    exitPlayer();
                    return 0;
                default:
                    break; // an unknown keyword: ignored (room for later versions)
            }
        }
    }

    // ------------------------------------------------------------------- options
    static final class OptionError extends Exception {
        private static final long serialVersionUID = 1L;

        OptionError(String message) {
            super(message);
        }
    }

    private static Field findField(Class<?> cls, String name) {
        for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
            try {
                return c.getDeclaredField(name);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        return null;
    }

    /** Sets option NAME on the bot's field NAME (of any access), converting JSON values. */
    static void setOption(Object bot, String name, Object value) throws OptionError {
        String where = "option " + name + " of " + bot.getClass().getName();
        Field field = findField(bot.getClass(), name);
        if (field == null || Modifier.isStatic(field.getModifiers())) {
            throw new OptionError(where + ": the class has no (non-static) field " + name);
        }
        if (Modifier.isFinal(field.getModifiers())) {
            throw new OptionError(where + ": field " + name + " is final");
        }
        Class<?> t = field.getType();
        Object v = null;
        boolean ok = true;
        if (value instanceof Number) {
            Number n = (Number) value;
            boolean whole = value instanceof Long;
            if ((t == int.class || t == Integer.class) && whole
                    && n.longValue() == n.intValue()) {
                v = n.intValue();
            } else if ((t == long.class || t == Long.class) && whole) {
                v = n.longValue();
            } else if ((t == short.class || t == Short.class) && whole
                    && n.longValue() == n.shortValue()) {
                v = n.shortValue();
            } else if ((t == byte.class || t == Byte.class) && whole
                    && n.longValue() == n.byteValue()) {
                v = n.byteValue();
            } else if (t == double.class || t == Double.class) {
                v = n.doubleValue();
            } else if (t == float.class || t == Float.class) {
                v = n.floatValue();
            } else {
                ok = false;
            }
        } else if (value instanceof Boolean) {
            v = value;
            ok = t == boolean.class || t == Boolean.class;
        } else if (value == null) {
            ok = !t.isPrimitive();
        } else {
            v = value;
            ok = t.isInstance(value); // String, List, Map
        }
        if (!ok) {
            throw new OptionError(where + ": cannot set the value " + value + " on field "
                    + name + " of type " + field.getType().getSimpleName());
        }
        try {
            field.setAccessible(true);
            field.set(bot, v);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new OptionError(where + ": " + e);
        }
    }

    /** A small reader of JSON values: Map, List, String, Long, Double, Boolean, null. */
    static final class JsonReader {
        private final String s;
        private int i;

        JsonReader(String s) {
            this.s = s;
        }

        Object document() {
            Object v = value();
            skip();
            if (i != s.length()) {
                throw new IllegalArgumentException("trailing text at " + i);
            }
            return v;
        }

        private void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private IllegalArgumentException bad(String what) {
            return new IllegalArgumentException(what + " at character " + i);
        }

        Object value() {
            skip();
            if (i >= s.length()) {
                throw bad("unexpected end");
            }
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                skip();
                if (i < s.length() && s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    skip();
                    if (i >= s.length() || s.charAt(i) != '"') {
                        throw bad("expected a key");
                    }
                    String key = string();
                    skip();
                    expect(':');
                    m.put(key, value());
                    skip();
                    if (i < s.length() && s.charAt(i) == ',') {
                        i++;
                        continue;
                    }
                    expect('}');
                    return m;
                }
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                i++;
                skip();
                if (i < s.length() && s.charAt(i) == ']') {
                    i++;
                    return list;
                }
                while (true) {
                    list.add(value());
                    skip();
                    if (i < s.length() && s.charAt(i) == ',') {
                        i++;
                        continue;
                    }
                    expect(']');
                    return list;
                }
            }
            if (c == '"') {
                return string();
            }
            if (s.startsWith("true", i)) {
                i += 4;
                return Boolean.TRUE;
            }
            if (s.startsWith("false", i)) {
                i += 5;
                return Boolean.FALSE;
            }
            if (s.startsWith("null", i)) {
                i += 4;
                return null;
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            String num = s.substring(start, i);
            if (num.isEmpty()) {
                throw bad("unexpected character '" + c + "'");
            }
            try {
                if (num.matches("-?[0-9]+")) {
                    return Long.parseLong(num);
                }
                return Double.parseDouble(num);
            } catch (NumberFormatException e) {
                throw bad("bad number " + num);
            }
        }

        private void expect(char c) {
            if (i >= s.length() || s.charAt(i) != c) {
                throw bad("expected '" + c + "'");
            }
            i++;
        }

        private String string() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return sb.toString();
                }
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    break;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': sb.append('\n'); break;
                    case 't': sb.append('\t'); break;
                    case 'r': sb.append('\r'); break;
                    case 'b': sb.append('\b'); break;
                    case 'f': sb.append('\f'); break;
                    case 'u':
                        if (i + 4 > s.length()) {
                            throw bad("bad \\u escape");
                        }
                        sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                        break;
                    default: sb.append(e); // \" \\ \/
                }
            }
            throw bad("unterminated string");
        }
    }

    // ---------------------------------------------------------------------- main
    public static void main(String[] args) throws IOException {
        boolean check = args.length == 2 && args[0].equals("--check");
        if (!(check || args.length == 1)) {
            System.err.println("usage: java cxarena.Host [--check] CLASS   "
                    + "(speaks docs/protocol.md on stdin/stdout)");
            System.exit(2);
        }
        String className = args[args.length - 1];
        if (check) {
            try {
                instantiate(load(className));
            } catch (Throwable t) {
                t.printStackTrace();
                String why = t instanceof IllegalArgumentException ? t.getMessage()
                        : "fails to load: " + t;
                System.out.println(oneLine(why, MAX_ERROR));
                System.out.flush();
                Runtime.getRuntime().halt(1);
            }
            System.out.flush();
            Runtime.getRuntime().halt(0);
        }
        // The protocol keeps private copies of the real stdin/stdout; the bot's System.out
        // goes to stderr (its log) and its System.in is empty.
        InputStream protoIn = new BufferedInputStream(new FileInputStream(FileDescriptor.in),
                1 << 16);
        OutputStream protoOut = new FileOutputStream(FileDescriptor.out);
        System.setOut(System.err);
        System.setIn(new ByteArrayInputStream(new byte[0]));
        int code = new Host(className, protoIn, protoOut).run();
        flushStd();
        Runtime.getRuntime().halt(code); // do not wait for a bot's non-daemon threads
    }
}
