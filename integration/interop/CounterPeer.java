// zkr interop: placeholder, being written (issue 23).
public final class CounterPeer {
    private CounterPeer() {}

    public static void main(String[] args) {
        System.out.println("ERROR not written yet");
        System.exit(2);
    }
}
