// zkr interop: placeholder, being written (issue 23).
public final class RevokePeer {
    private RevokePeer() {}

    public static void main(String[] args) {
        System.out.println("ERROR not written yet");
        System.exit(2);
    }
}
