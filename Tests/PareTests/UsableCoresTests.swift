import Testing
@_spi(CommandLine) @testable import Pare

/// The decode pools are sized by the cores the process may use: its affinity mask and its
/// cgroup's quota, not the machine's count.
@Suite struct UsableCoresTests {
    @Test func affinityMask() {
        #expect(UsableCores.affinity(status: "Name:\tpare\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n") == 2)
        #expect(UsableCores.affinity(status: "Cpus_allowed:\tffffffff,00000001\n") == 33)
        #expect(UsableCores.affinity(status: "Cpus_allowed:\t0\n") == nil)
        #expect(UsableCores.affinity(status: "Name:\tpare\n") == nil)
    }

    @Test func cgroupQuotas() {
        #expect(UsableCores.quota(cgroupV2: "max 100000\n") == nil)
        #expect(UsableCores.quota(cgroupV2: "50000 100000\n") == 1)
        #expect(UsableCores.quota(cgroupV2: "150000 100000\n") == 2)
        #expect(UsableCores.quota(cgroupV2: "400000 100000") == 4)
        #expect(UsableCores.quota(cgroupV1Quota: "-1\n", period: "100000\n") == nil)
        #expect(UsableCores.quota(cgroupV1Quota: "250000\n", period: "100000\n") == 3)
        #expect(UsableCores.quota(cgroupV2: "garbage") == nil)
    }

    /// On this machine: no more than the online count, and the affinity mask's count where
    /// there is one (CI runs unrestricted; under `taskset -c 0` it is 1).
    @Test func thisProcess() {
        #expect(UsableCores.count >= 1 && UsableCores.count <= UsableCores.onlineCores)
        if let affinity = UsableCores.affinityCores { #expect(UsableCores.count <= affinity) }
        #expect(ParallelJPEGDecoder.activeCores == UsableCores.count)
    }
}
