//! The Vulkan side: devices, and dispatching a plan's shader (ash; the
//! loader `libvulkan.so.1` is opened at run time, so a machine without it
//! gets [`DeviceError::NoLoader`], never a link error).

use super::harness::{self, Layout, Params, Rng};
use super::spirv::{self, Breakage, ShaderOptions, binding, param};
use super::{DeviceInfo, Features, Plan, Unsupported};
use crate::analysis::litmus::FinalState;
use ash::vk;
use std::collections::BTreeMap;
use std::ffi::CStr;
use web_time::Instant;

/// Why a device could not be used.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// No Vulkan loader on this machine.
    #[error(
        "no Vulkan loader (libvulkan.so.1) on this machine: {0}; install one \
         (Debian: `apt-get install mesa-vulkan-drivers libvulkan1` for lavapipe, \
         or your GPU vendor's driver)"
    )]
    NoLoader(String),
    /// A loader, but no device.
    #[error(
        "the Vulkan loader found no device{0}; on a machine without a GPU, \
         `apt-get install mesa-vulkan-drivers` gives lavapipe"
    )]
    NoDevice(String),
    /// `--device` names no device.
    #[error("{0}")]
    Selection(String),
    /// The device lacks what vkmm needs.
    #[error("{name}: {what}")]
    Unfit { name: String, what: String },
    /// A Vulkan call failed.
    #[error("Vulkan: {0}")]
    Vulkan(String),
}

fn vkerr(what: &str) -> impl Fn(vk::Result) -> DeviceError + '_ {
    move |e| DeviceError::Vulkan(format!("{what}: {e}"))
}

fn cstr(s: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    s.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

struct Loaded {
    _entry: ash::Entry,
    instance: ash::Instance,
}

impl Drop for Loaded {
    fn drop(&mut self) {
        unsafe { self.instance.destroy_instance(None) };
    }
}

fn load() -> Result<Loaded, DeviceError> {
    let entry = unsafe { ash::Entry::load() }.map_err(|e| DeviceError::NoLoader(e.to_string()))?;
    let app = vk::ApplicationInfo::default()
        .application_name(c"vkmm")
        .api_version(vk::make_api_version(0, 1, 3, 0));
    let ci = vk::InstanceCreateInfo::default().application_info(&app);
    let instance = unsafe { entry.create_instance(&ci, None) }.map_err(|e| {
        if e == vk::Result::ERROR_INCOMPATIBLE_DRIVER {
            DeviceError::NoDevice(format!(" (vkCreateInstance: {e})"))
        } else {
            DeviceError::Vulkan(format!("vkCreateInstance: {e}"))
        }
    })?;
    Ok(Loaded {
        _entry: entry,
        instance,
    })
}

fn describe(instance: &ash::Instance, index: usize, pd: vk::PhysicalDevice) -> DeviceInfo {
    let basic = unsafe { instance.get_physical_device_properties(pd) };
    // Subgroup size control is core in Vulkan 1.3: only then are its
    // structures chained (a 1.2 device may not know them).
    let v13 = basic.api_version >= vk::make_api_version(0, 1, 3, 0);
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut size_props = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    let mut props = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut driver)
        .push_next(&mut subgroup);
    if v13 {
        props = props.push_next(&mut size_props);
    }
    unsafe { instance.get_physical_device_properties2(pd, &mut props) };
    let p = props.properties;
    let mut mm = vk::PhysicalDeviceVulkanMemoryModelFeatures::default();
    let mut size_control = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
    let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut mm);
    if v13 {
        features = features.push_next(&mut size_control);
    }
    unsafe { instance.get_physical_device_features2(pd, &mut features) };
    let pin = v13
        && size_control.subgroup_size_control == vk::TRUE
        && size_control.compute_full_subgroups == vk::TRUE
        && size_props
            .required_subgroup_size_stages
            .contains(vk::ShaderStageFlags::COMPUTE);
    let v = p.api_version;
    let dv = p.driver_version;
    DeviceInfo {
        index,
        name: cstr(p.device_name_as_c_str()),
        device_type: format!("{:?}", p.device_type),
        vendor_id: p.vendor_id,
        device_id: p.device_id,
        api_version: format!(
            "{}.{}.{}",
            vk::api_version_major(v),
            vk::api_version_minor(v),
            vk::api_version_patch(v)
        ),
        driver_version: dv,
        driver_name: cstr(driver.driver_name_as_c_str()),
        driver_info: cstr(driver.driver_info_as_c_str()),
        subgroup_size: subgroup.subgroup_size,
        max_workgroup_invocations: p.limits.max_compute_work_group_invocations,
        features: Features {
            vulkan_memory_model: mm.vulkan_memory_model == vk::TRUE,
            device_scope: mm.vulkan_memory_model_device_scope == vk::TRUE,
            availability_visibility_chains: mm.vulkan_memory_model_availability_visibility_chains
                == vk::TRUE,
            subgroup_size_control: pin,
        },
    }
}

/// The devices the loader sees, in its order (`--device` indexes them).
pub fn devices() -> Result<Vec<DeviceInfo>, DeviceError> {
    let l = load()?;
    let pds = unsafe { l.instance.enumerate_physical_devices() }
        .map_err(vkerr("vkEnumeratePhysicalDevices"))?;
    Ok(pds
        .iter()
        .enumerate()
        .map(|(i, pd)| describe(&l.instance, i, *pd))
        .collect())
}

/// An open device ready to run plans.
pub struct Gpu {
    pub info: DeviceInfo,
    device: ash::Device,
    queue: vk::Queue,
    queue_family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    loaded: Loaded,
}

impl Drop for Gpu {
    fn drop(&mut self) {
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
        }
        let _ = &self.loaded;
    }
}

/// What a run of one plan saw.
#[derive(Clone, Debug, Default)]
pub struct Observed {
    pub histogram: BTreeMap<FinalState, u64>,
    pub iterations: u64,
    pub instances_per_iteration: usize,
    /// Instances not counted: a thread stopped at the step cap.
    pub cut: u64,
    pub seconds: f64,
}

impl Gpu {
    /// Opens a device: by index, by (a part of its) name, or the first one
    /// with the Vulkan memory model.
    pub fn open(selector: Option<&str>) -> Result<Gpu, DeviceError> {
        let loaded = load()?;
        let pds = unsafe { loaded.instance.enumerate_physical_devices() }
            .map_err(vkerr("vkEnumeratePhysicalDevices"))?;
        if pds.is_empty() {
            return Err(DeviceError::NoDevice(String::new()));
        }
        let infos: Vec<DeviceInfo> = pds
            .iter()
            .enumerate()
            .map(|(i, pd)| describe(&loaded.instance, i, *pd))
            .collect();
        let listing = || {
            infos
                .iter()
                .map(|d| format!("{}: {}", d.index, d.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let chosen = match selector {
            Some(s) => match s.parse::<usize>() {
                Ok(i) => infos.get(i).ok_or_else(|| {
                    DeviceError::Selection(format!(
                        "--device {i}: there are {} devices ({})",
                        infos.len(),
                        listing()
                    ))
                })?,
                Err(_) => {
                    let low = s.to_lowercase();
                    infos
                        .iter()
                        .find(|d| d.name.to_lowercase().contains(&low))
                        .ok_or_else(|| {
                            DeviceError::Selection(format!(
                                "--device `{s}` names no device ({})",
                                listing()
                            ))
                        })?
                }
            },
            None => infos
                .iter()
                .find(|d| d.features.vulkan_memory_model)
                .unwrap_or(&infos[0]),
        };
        let info = chosen.clone();
        let pd = pds[info.index];
        let unfit = |what: &str| DeviceError::Unfit {
            name: info.name.clone(),
            what: what.to_string(),
        };
        if !info.features.vulkan_memory_model {
            return Err(unfit("no vulkanMemoryModel feature"));
        }
        let families = unsafe {
            loaded
                .instance
                .get_physical_device_queue_family_properties(pd)
        };
        let queue_family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or_else(|| unfit("no compute queue"))? as u32;
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(queue_family)
            .queue_priorities(&priorities)];
        let mut mm = vk::PhysicalDeviceVulkanMemoryModelFeatures::default()
            .vulkan_memory_model(true)
            .vulkan_memory_model_device_scope(info.features.device_scope)
            .vulkan_memory_model_availability_visibility_chains(
                info.features.availability_visibility_chains,
            );
        let mut size_control = vk::PhysicalDeviceSubgroupSizeControlFeatures::default()
            .subgroup_size_control(true)
            .compute_full_subgroups(true);
        let mut ci = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .push_next(&mut mm);
        if info.features.subgroup_size_control {
            ci = ci.push_next(&mut size_control);
        }
        let device = unsafe { loaded.instance.create_device(pd, &ci, None) }
            .map_err(vkerr("vkCreateDevice"))?;
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        let memory = unsafe { loaded.instance.get_physical_device_memory_properties(pd) };
        Ok(Gpu {
            info,
            device,
            queue,
            queue_family,
            memory,
            loaded,
        })
    }

    /// Runs a plan: `params.iterations` dispatches (or until the time
    /// budget), each with a fresh placement.
    pub fn run(
        &self,
        plan: &Plan,
        params: &Params,
        breakage: Option<Breakage>,
    ) -> Result<Result<Observed, Unsupported>, DeviceError> {
        if let Err(u) = harness::check_fits(plan, params, self.info.subgroup_size) {
            return Ok(Err(u));
        }
        if params.workgroup_size > self.info.max_workgroup_invocations {
            return Ok(Err(Unsupported {
                reason: super::Reason::Placement,
                detail: format!(
                    "workgroup size {} exceeds the device's {}",
                    params.workgroup_size, self.info.max_workgroup_invocations
                ),
            }));
        }
        let needs_device_scope = plan.program.threads.iter().any(|t| {
            t.instructions()
                .any(|i| i.scope == Some(crate::ir::Scope::Device))
        });
        if needs_device_scope && !self.info.features.device_scope {
            return Ok(Err(Unsupported {
                reason: super::Reason::Scope,
                detail: "Device scope without the vulkanMemoryModelDeviceScope feature".into(),
            }));
        }
        let words = spirv::shader(
            plan,
            &ShaderOptions {
                workgroup_size: params.workgroup_size,
                step_cap: params.step_cap,
                breakage,
            },
        );
        let mut rng = Rng::new(params.seed);
        let first = harness::layout(plan, params, self.info.subgroup_size, &mut rng);
        let mut run = Dispatch::new(self, plan, params, &first, &words)?;
        let start = Instant::now();
        let mut observed = Observed {
            instances_per_iteration: first.instances,
            ..Observed::default()
        };
        let mut layout = first;
        for it in 0..params.iterations {
            if it > 0 && params.shuffle {
                layout = harness::layout(plan, params, self.info.subgroup_size, &mut rng);
            }
            let (out, mem, sizes) = run.go(plan, params, &layout)?;
            if plan.needs_subgroups && (sizes.0 != sizes.1 || sizes.0 != self.info.subgroup_size) {
                return Ok(Err(Unsupported {
                    reason: super::Reason::Placement,
                    detail: format!(
                        "the shader saw subgroup sizes {}..{}, the device reports {}: \
                         placement by subgroup needs a fixed size",
                        sizes.1, sizes.0, self.info.subgroup_size
                    ),
                }));
            }
            let (states, cut) = harness::final_states(plan, &layout, &out, &mem);
            observed.cut += cut;
            for s in states {
                *observed.histogram.entry(s).or_insert(0) += 1;
            }
            observed.iterations += 1;
            if params
                .time_budget_secs
                .is_some_and(|b| start.elapsed().as_secs_f64() >= b)
            {
                break;
            }
        }
        observed.seconds = start.elapsed().as_secs_f64();
        Ok(Ok(observed))
    }

    fn memory_type(&self, bits: u32) -> Option<u32> {
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        (0..self.memory.memory_type_count).find(|&i| {
            bits & (1 << i) != 0
                && self.memory.memory_types[i as usize]
                    .property_flags
                    .contains(want)
        })
    }
}

/// A host-visible storage buffer.
struct Buffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u32,
    words: usize,
}

/// The Vulkan objects of one plan's runs.
struct Dispatch<'g> {
    gpu: &'g Gpu,
    buffers: Vec<Buffer>,
    set_layout: vk::DescriptorSetLayout,
    pool: vk::DescriptorPool,
    layout: vk::PipelineLayout,
    module: vk::ShaderModule,
    pipeline: vk::Pipeline,
    commands: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
}

impl Drop for Dispatch<'_> {
    fn drop(&mut self) {
        let d = &self.gpu.device;
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.commands, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_shader_module(self.module, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            for b in &self.buffers {
                d.unmap_memory(b.memory);
                d.destroy_buffer(b.buffer, None);
                d.free_memory(b.memory, None);
            }
        }
    }
}

impl<'g> Dispatch<'g> {
    fn new(
        gpu: &'g Gpu,
        plan: &Plan,
        params: &Params,
        layout: &Layout,
        words: &[u32],
    ) -> Result<Dispatch<'g>, DeviceError> {
        let d = &gpu.device;
        let sizes = [
            layout.mem_words,
            layout.place.len(),
            layout.addr.len(),
            (layout.instances * spirv::out_words(plan)).max(1),
            layout.role.len(),
            params.scratch_words.max(1) as usize,
            param::COUNT,
        ];
        let mut run = Dispatch {
            gpu,
            buffers: Vec::new(),
            set_layout: vk::DescriptorSetLayout::null(),
            pool: vk::DescriptorPool::null(),
            layout: vk::PipelineLayout::null(),
            module: vk::ShaderModule::null(),
            pipeline: vk::Pipeline::null(),
            commands: vk::CommandPool::null(),
            cmd: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
        };
        for words in sizes {
            let ci = vk::BufferCreateInfo::default()
                .size((words * 4) as u64)
                .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
                .sharing_mode(vk::SharingMode::EXCLUSIVE);
            let buffer = unsafe { d.create_buffer(&ci, None) }.map_err(vkerr("vkCreateBuffer"))?;
            let req = unsafe { d.get_buffer_memory_requirements(buffer) };
            let Some(ty) = gpu.memory_type(req.memory_type_bits) else {
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(DeviceError::Unfit {
                    name: gpu.info.name.clone(),
                    what: "no host-visible coherent memory for storage buffers".into(),
                });
            };
            let ai = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(ty);
            let memory = match unsafe { d.allocate_memory(&ai, None) } {
                Ok(m) => m,
                Err(e) => {
                    unsafe { d.destroy_buffer(buffer, None) };
                    return Err(DeviceError::Vulkan(format!("vkAllocateMemory: {e}")));
                }
            };
            let mapped = unsafe {
                d.bind_buffer_memory(buffer, memory, 0).and_then(|_| {
                    d.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                })
            };
            let ptr = match mapped {
                Ok(p) => p as *mut u32,
                Err(e) => {
                    unsafe {
                        d.destroy_buffer(buffer, None);
                        d.free_memory(memory, None);
                    }
                    return Err(DeviceError::Vulkan(format!("binding buffer memory: {e}")));
                }
            };
            run.buffers.push(Buffer {
                buffer,
                memory,
                ptr,
                words,
            });
        }
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = (0..binding::COUNT)
            .map(|i| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(i)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let ci = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        run.set_layout = unsafe { d.create_descriptor_set_layout(&ci, None) }
            .map_err(vkerr("vkCreateDescriptorSetLayout"))?;
        let pool_sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: binding::COUNT,
        }];
        let ci = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&pool_sizes);
        run.pool = unsafe { d.create_descriptor_pool(&ci, None) }
            .map_err(vkerr("vkCreateDescriptorPool"))?;
        let layouts = [run.set_layout];
        let ai = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(run.pool)
            .set_layouts(&layouts);
        let set = unsafe { d.allocate_descriptor_sets(&ai) }
            .map_err(vkerr("vkAllocateDescriptorSets"))?[0];
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = run
            .buffers
            .iter()
            .map(|b| {
                [vk::DescriptorBufferInfo::default()
                    .buffer(b.buffer)
                    .offset(0)
                    .range(vk::WHOLE_SIZE)]
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .enumerate()
            .map(|(i, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(i as u32)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        unsafe { d.update_descriptor_sets(&writes, &[]) };
        let ci = vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts);
        run.layout = unsafe { d.create_pipeline_layout(&ci, None) }
            .map_err(vkerr("vkCreatePipelineLayout"))?;
        let ci = vk::ShaderModuleCreateInfo::default().code(words);
        run.module =
            unsafe { d.create_shader_module(&ci, None) }.map_err(vkerr("vkCreateShaderModule"))?;
        // Pin the subgroup size (and full subgroups) when the placement
        // depends on it; the shader still checks the size it sees.
        let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
            .required_subgroup_size(gpu.info.subgroup_size);
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(run.module)
            .name(c"main");
        if plan.needs_subgroups && gpu.info.features.subgroup_size_control {
            stage = stage
                .flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS)
                .push_next(&mut required);
        }
        let ci = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(run.layout)];
        run.pipeline = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &ci, None) }
            .map_err(|(_, e)| DeviceError::Vulkan(format!("vkCreateComputePipelines: {e}")))?[0];
        let ci = vk::CommandPoolCreateInfo::default().queue_family_index(gpu.queue_family);
        run.commands =
            unsafe { d.create_command_pool(&ci, None) }.map_err(vkerr("vkCreateCommandPool"))?;
        let ai = vk::CommandBufferAllocateInfo::default()
            .command_pool(run.commands)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        run.cmd = unsafe { d.allocate_command_buffers(&ai) }
            .map_err(vkerr("vkAllocateCommandBuffers"))?[0];
        unsafe {
            d.begin_command_buffer(run.cmd, &vk::CommandBufferBeginInfo::default())
                .map_err(vkerr("vkBeginCommandBuffer"))?;
            d.cmd_bind_pipeline(run.cmd, vk::PipelineBindPoint::COMPUTE, run.pipeline);
            d.cmd_bind_descriptor_sets(
                run.cmd,
                vk::PipelineBindPoint::COMPUTE,
                run.layout,
                0,
                &[set],
                &[],
            );
            d.cmd_dispatch(run.cmd, layout.workgroups, 1, 1);
            // The shader's writes, made available and visible to the host.
            let barrier = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            d.cmd_pipeline_barrier(
                run.cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
            d.end_command_buffer(run.cmd)
                .map_err(vkerr("vkEndCommandBuffer"))?;
        }
        run.fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(vkerr("vkCreateFence"))?;
        Ok(run)
    }

    fn write(&self, b: usize, data: &[u32]) {
        let buf = &self.buffers[b];
        let n = data.len().min(buf.words);
        // SAFETY: the mapping holds `words` u32s; the device is idle.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), buf.ptr, n) };
    }

    fn read(&self, b: usize) -> Vec<u32> {
        let buf = &self.buffers[b];
        let mut v = vec![0u32; buf.words];
        // SAFETY: as in `write`; the fence says the dispatch ended.
        unsafe { std::ptr::copy_nonoverlapping(buf.ptr, v.as_mut_ptr(), buf.words) };
        v
    }

    /// One dispatch: `OUT`, `MEM` and the subgroup sizes the shader saw (max, min).
    #[allow(clippy::type_complexity)]
    fn go(
        &mut self,
        plan: &Plan,
        params: &Params,
        layout: &Layout,
    ) -> Result<(Vec<u32>, Vec<u32>, (u32, u32)), DeviceError> {
        self.write(
            binding::MEM as usize,
            &harness::initial_memory(plan, layout),
        );
        self.write(binding::PLACE as usize, &layout.place);
        self.write(binding::ADDR as usize, &layout.addr);
        let ow = self.buffers[binding::OUT as usize].words;
        self.write(binding::OUT as usize, &vec![0; ow]);
        self.write(binding::ROLE as usize, &layout.role);
        let mut p = [0u32; param::COUNT];
        p[param::STRESS_ITERATIONS] = params.stress_iterations;
        p[param::SCRATCH_WORDS] = params.scratch_words.max(1);
        p[param::BARRIER_PARTICIPANTS] = if params.start_barrier {
            layout.active
        } else {
            0
        };
        p[param::SUBGROUP_SIZE_MIN] = u32::MAX;
        p[param::SPIN_CAP] = 1 << 16;
        self.write(binding::PARAMS as usize, &p);
        let d = &self.gpu.device;
        let cmds = [self.cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        unsafe {
            d.queue_submit(self.gpu.queue, &submit, self.fence)
                .map_err(vkerr("vkQueueSubmit"))?;
            // Loops are bounded, so a dispatch ends; a minute is a hang.
            d.wait_for_fences(&[self.fence], true, 60_000_000_000)
                .map_err(vkerr("waiting for the dispatch"))?;
            d.reset_fences(&[self.fence])
                .map_err(vkerr("vkResetFences"))?;
        }
        let params_out = self.read(binding::PARAMS as usize);
        Ok((
            self.read(binding::OUT as usize),
            self.read(binding::MEM as usize),
            (
                params_out[param::SUBGROUP_SIZE_MAX],
                params_out[param::SUBGROUP_SIZE_MIN],
            ),
        ))
    }
}
