import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/** A legacy send from a JVM, unmodified: the proxy and the trust store come from
 * JAVA_TOOL_OPTIONS as `fcm-device env` prints it. Usage: java Send.java KEY TOKEN */
public class Send {
    public static void main(String[] args) throws Exception {
        var connection = (HttpURLConnection) URI.create("https://fcm.googleapis.com/fcm/send").toURL().openConnection();
        connection.setRequestMethod("POST");
        connection.setDoOutput(true);
        connection.setRequestProperty("Authorization", "key=" + args[0]);
        connection.setRequestProperty("Content-Type", "application/json");
        var body = "{\"to\":\"" + args[1] + "\",\"data\":{\"via\":\"java\"}}";
        connection.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
        System.out.println(new String(connection.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
